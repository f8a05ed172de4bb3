// The one item of the orders table that is no order: the index-lag canary's sentinel
// (lib/contract/index-canary.ts). Every reader that turns the table's items, or its stream's records,
// into orders leaves it out with this predicate: the v1 listing's Scan, the v2 unfiltered page, the
// backfill's Scan, the stream's consumers, the tools' listings. It takes an item or a record's `Keys`
// in DynamoDB JSON and compares the id's digits as text, so a byte-level reader can do the same.
import { SENTINEL_ID } from '../../contract/index-canary';

/** An item (or a stream record's Keys, or an image) as DynamoDB JSON: only its id is read. */
export interface KeyedItem {
  id?: { N?: string } | undefined;
}

/** Whether the item is the canary's sentinel rather than an order. */
export function isSentinel(item: KeyedItem | undefined): boolean {
  return item?.id?.N === SENTINEL_ID;
}
