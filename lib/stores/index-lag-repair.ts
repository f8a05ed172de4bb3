// The sync watch's sweep of an episode of index lag (docs/design.md#the-index-lag-canary): every
// order whose latest change is stamped within the window the canary asks for is re-stamped, as a
// late change is (lib/stores/order-restamps.ts), so every later walk delivers it. The by-update
// index lists exactly those, a shard at a time, once the lag is back: every change of the window
// has its entry there, and a change superseded since is covered by the one that superseded it.
// A re-stamp moves the order out of the window, so a sweep started again (a batch sent again, the
// episode's second sweep) goes on where the last one left off; one whose entry the index still
// shows from before a later change fails its condition and writes nothing.
import { QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../commons/deadline';
import { ORDER_INDEXES, SYNC_SHARDS, updateShard } from '../contract/tables';
import type { RepairWindow } from '../core/sync/index-lag';
import { readOptions } from './call-deadlines';
import type { OrderRestamps } from './order-restamps';
import { syncedOrderFromAttributes } from './orders';

/** Sorts after every `<updatedAt>#<20 digits>` key of its millisecond. */
const AFTER_EVERY_ID = '#~';

export class IndexLagRepair {
  constructor(
    /** Reads are safe to retry: the retrying client. */
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly restamps: Pick<OrderRestamps, 'restamp'>,
  ) {}

  /**
   * Re-stamps every order the by-update index shows stamped within the window, the shards side by
   * side, each in order; how many it re-stamped. Its calls carry the watch's deadline; the first
   * failure is thrown once every shard has stopped, and the batch is sent again from its record.
   */
  async sweep(window: RepairWindow, deadline?: Deadline): Promise<number> {
    const from = new Date(window.fromMs).toISOString();
    const to = `${new Date(window.toMs).toISOString()}${AFTER_EVERY_ID}`;
    const shards = await Promise.allSettled(
      Array.from({ length: SYNC_SHARDS }, (_, shard) => this.sweepShard(updateShard(shard), from, to, deadline)),
    );
    const failed = shards.find((shard) => shard.status === 'rejected');
    if (failed) throw failed.reason;
    return shards.reduce((sum, shard) => sum + (shard.status === 'fulfilled' ? shard.value : 0), 0);
  }

  private async sweepShard(partition: string, from: string, to: string, deadline?: Deadline): Promise<number> {
    const index = ORDER_INDEXES.byUpdate;
    let restamped = 0;
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await this.client.send(
        new QueryCommand({
          TableName: this.table,
          IndexName: index.name,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
          ExpressionAttributeNames: { '#pk': index.partitionKey.name, '#sk': index.sortKey.name },
          ExpressionAttributeValues: { ':pk': { S: partition }, ':from': { S: from }, ':to': { S: to } },
          ...(startKey ? { ExclusiveStartKey: startKey } : {}),
        }),
        readOptions(deadline),
      );
      for (const item of page.Items ?? []) {
        const order = syncedOrderFromAttributes(item);
        if (order.updatedAt === undefined) continue;
        const seen = { id: order.id, status: order.status, updatedAt: order.updatedAt };
        if ((await this.restamps.restamp(seen, deadline)) !== undefined) restamped++;
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return restamped;
  }
}
