// The orders table's stream records, read as changes of orders: what every consumer of the stream
// (the sync watch; event delivery later) starts from. The images are the table's items in DynamoDB
// JSON, read by the same decoder as a Scan's items.
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { SyncedOrder } from '../contract/synced-order';
import { isSentinel } from '../core/sync/sentinel';
import { syncedOrderFromAttributes } from './orders';

export interface OrderChange {
  /** The record's sequence number: how a consumer names a record it failed (ReportBatchItemFailures). */
  sequenceNumber: string;
  kind: 'INSERT' | 'MODIFY' | 'REMOVE';
  /** DynamoDB's ApproximateCreationDateTime: epoch seconds, rounded down; absent if the record has none. */
  createdSeconds: number | undefined;
  /** The order before the change (none for INSERT) and after it (none for REMOVE). */
  before: SyncedOrder | undefined;
  after: SyncedOrder | undefined;
}

/**
 * The stream's images carry N, S and BOOL as the SDK's plain client reads them; `@types/aws-lambda`
 * types binary values as base64 text where the SDK has bytes, which the order decoder never reads.
 */
const orderOf = (image: NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']> | undefined) =>
  image === undefined ? undefined : syncedOrderFromAttributes(image as Record<string, AttributeValue>);

/**
 * The change a record describes; undefined for a record that is not an order's (malformed, no
 * sequence number, or the index-lag canary's sentinel: isSentinel on its keys).
 */
export function orderChangeOf(record: DynamoDBRecord): OrderChange | undefined {
  const stream = record.dynamodb;
  const sequenceNumber = stream?.SequenceNumber;
  if (stream === undefined || sequenceNumber === undefined || record.eventName === undefined) return undefined;
  if (isSentinel(stream.Keys)) return undefined;
  try {
    return {
      sequenceNumber,
      kind: record.eventName,
      createdSeconds: stream.ApproximateCreationDateTime,
      before: orderOf(stream.OldImage),
      after: orderOf(stream.NewImage),
    };
  } catch {
    // An item that is no order (orderFromAttributes refuses it): nothing a consumer of orders can act on.
    return undefined;
  }
}
