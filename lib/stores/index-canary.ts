// The index-lag canary's sentinel: the one item of the orders table that is no order
// (lib/contract/index-canary.ts). Each run stamps a probe on it, which moves its entry in every
// index of the table (partition SENTINEL_INDEX_PARTITION, sort key the probe's time), reads it back
// through each index, and keeps its record on it (lib/core/sync/index-lag.ts): what the walks read,
// strongly consistent, to know how far to hold their watermark back. A sweep the canary asks for is
// an attribute of its own, `repair`, which the sync watch finds in the item's stream record.
// Its writes are conditional on the probe, so two runs that overlap cannot mix their records.
import { GetItemCommand, QueryCommand, UpdateItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { Deadline } from '../commons/deadline';
import { logger } from '../commons/logger';
import { INDEX_CANARY, SENTINEL_ID, SENTINEL_INDEX_PARTITION } from '../contract/index-canary';
import { ORDER_INDEXES, type IndexSpec } from '../contract/tables';
import { canaryRecordOf, repairWindowOf, type CanaryRecord, type RepairWindow } from '../core/sync/index-lag';
import { isSentinel } from '../core/sync/sentinel';
import { readOptions, sendWrite, type AttemptTimer } from './call-deadlines';
import { conditionalWrite } from './conditional';

/** The sentinel's attributes besides its key and index keys. */
const PROBE = 'probe';
const RECORD = 'canary';
const REPAIR = 'repair';

const KEY = { id: { N: SENTINEL_ID } };

const json = (image: Record<string, AttributeValue> | undefined, name: string): unknown => {
  const text = image?.[name]?.S;
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * The sweep a stream record of the sentinel asks for: the write that set (or changed) its `repair`
 * attribute, and no other, so the canary's later writes, which leave it as it is, ask for nothing.
 */
export function repairAskedBy(record: DynamoDBRecord): RepairWindow | undefined {
  const stream = record.dynamodb;
  if (!isSentinel(stream?.Keys)) return undefined;
  const asked = stream?.NewImage?.[REPAIR]?.S;
  if (asked === undefined || asked === stream?.OldImage?.[REPAIR]?.S) return undefined;
  const image = stream?.NewImage as Record<string, AttributeValue> | undefined;
  return repairWindowOf(json(image, REPAIR));
}

export class IndexCanaryStore {
  constructor(
    /** Its writes are conditional on the probe, so the SDK's retries are safe: the retrying client. */
    private readonly client: DynamoDBDocumentClient,
    private readonly table: string,
    /** Each write's own time (its SDK retries within it): the composition root's per-attempt timeout. */
    private readonly attemptTimer?: AttemptTimer,
  ) {}

  /** The canary's record, read strongly consistent; undefined when there is none yet (or it cannot be read as one). */
  async read(deadline?: Deadline): Promise<CanaryRecord | undefined> {
    const { Item } = await this.client.send(
      new GetItemCommand({ TableName: this.table, Key: KEY, ConsistentRead: true }),
      readOptions(deadline),
    );
    return canaryRecordOf(json(Item, RECORD));
  }

  /**
   * Stamps a new probe, with the record the run starts from and a sweep it asks for. Only over the
   * probe the run read (or its own, when an attempt of this write landed unanswered): false when
   * another run wrote one since, and this run then measures nothing.
   */
  async writeProbe(
    record: CanaryRecord,
    previousProbeMs: number | undefined,
    repair: RepairWindow | undefined,
    deadline?: Deadline,
  ): Promise<boolean> {
    // Both indexes sort by the same attribute (lib/contract/tables.ts): the probe's time.
    const indexKeys = Object.values(ORDER_INDEXES);
    const names: Record<string, string> = {
      '#probe': PROBE,
      '#record': RECORD,
      '#sort': ORDER_INDEXES.byUpdate.sortKey.name,
    };
    const values: Record<string, AttributeValue> = {
      ':partition': { S: SENTINEL_INDEX_PARTITION },
      ':sort': { S: new Date(record.probeMs).toISOString() },
      ':probe': { N: String(record.probeMs) },
      ':record': { S: JSON.stringify(record) },
    };
    indexKeys.forEach((index, i) => (names[`#partition${i}`] = index.partitionKey.name));
    const sets = [
      ...indexKeys.map((_, i) => `#partition${i} = :partition`),
      '#sort = :sort',
      '#probe = :probe',
      '#record = :record',
    ];
    if (repair) {
      names['#repair'] = REPAIR;
      values[':repair'] = { S: JSON.stringify(repair) };
      sets.push('#repair = :repair');
    }
    if (previousProbeMs !== undefined) values[':previous'] = { N: String(previousProbeMs) };
    const condition =
      previousProbeMs === undefined
        ? 'attribute_not_exists(#probe) OR #probe = :probe'
        : '#probe = :previous OR #probe = :probe';
    return this.conditional(`SET ${sets.join(', ')}`, condition, names, values, deadline);
  }

  /** The run's measurement, and a sweep it asks for: only while its probe is still the latest. */
  async writeRecord(record: CanaryRecord, repair: RepairWindow | undefined, deadline?: Deadline): Promise<boolean> {
    const names: Record<string, string> = { '#probe': PROBE, '#record': RECORD };
    const values: Record<string, AttributeValue> = {
      ':probe': { N: String(record.probeMs) },
      ':record': { S: JSON.stringify(record) },
    };
    let update = 'SET #record = :record';
    if (repair) {
      names['#repair'] = REPAIR;
      values[':repair'] = { S: JSON.stringify(repair) };
      update += ', #repair = :repair';
    }
    return this.conditional(update, '#probe = :probe', names, values, deadline);
  }

  /** Whether a read of the index, eventually consistent as every index read is, shows the probe (or a later one). */
  async indexShows(index: IndexSpec, probeMs: number, deadline?: Deadline): Promise<boolean> {
    const { Items = [] } = await this.client.send(
      new QueryCommand({
        TableName: this.table,
        IndexName: index.name,
        KeyConditionExpression: '#partition = :partition',
        ExpressionAttributeNames: { '#partition': index.partitionKey.name },
        ExpressionAttributeValues: { ':partition': { S: SENTINEL_INDEX_PARTITION } },
        Limit: 1,
      }),
      readOptions(deadline),
    );
    const shown = Number(Items[0]?.[PROBE]?.N);
    return Number.isFinite(shown) && shown >= probeMs;
  }

  private async conditional(
    update: string,
    condition: string,
    names: Record<string, string>,
    values: Record<string, AttributeValue>,
    deadline: Deadline | undefined,
  ): Promise<boolean> {
    const outcome = await conditionalWrite(() =>
      sendWrite(this.attemptTimer, deadline, (options) =>
        this.client.send(
          new UpdateItemCommand({
            TableName: this.table,
            Key: KEY,
            UpdateExpression: update,
            ConditionExpression: condition,
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: values,
          }),
          options,
        ),
      ),
    );
    return outcome.applied;
  }
}

/**
 * The record as a walk's function reads it: once per INDEX_CANARY.readerCacheMs at most, so a last
 * page costs a strongly consistent GetItem a second per container at most. A read that fails leaves
 * the record last read (however old: the rules judge its age) or none, which vouches for nothing:
 * the walk's watermark is then held where the rules say, rather than the page failing.
 */
export class CanaryRecordReader {
  private held: { record: CanaryRecord | undefined; at: number } | undefined;

  constructor(
    private readonly store: Pick<IndexCanaryStore, 'read'>,
    private readonly now: () => number,
    private readonly cacheMs: number = INDEX_CANARY.readerCacheMs,
  ) {}

  async current(deadline?: Deadline): Promise<CanaryRecord | undefined> {
    const now = this.now();
    if (this.held !== undefined && now - this.held.at < this.cacheMs) return this.held.record;
    try {
      const record = await this.store.read(deadline);
      this.held = { record, at: now };
      return record;
    } catch (error) {
      logger.warn("index-lag canary's record unread: the watermark holds as the last record read says", {
        error: error as Error,
      });
      return this.held?.record;
    }
  }
}
