// The v2 listing's index keys of an order, derived from its id, status and updatedAt: every write
// sets them together (lib/stores/orders.ts), so the indexes never disagree with the order.
import { INT64_MIN, type OrderStatus } from '../../contract/order';
import { ORDER_INDEXES, statusShard, SYNC_SHARDS, updateShard } from '../../contract/tables';

/** The shard of an order: its id modulo SYNC_SHARDS, so sequential ids spread evenly. */
export function shardOf(id: string): number {
  const rest = Number(BigInt(id) % BigInt(SYNC_SHARDS));
  return rest < 0 ? rest + SYNC_SHARDS : rest;
}

/**
 * The sort key: updatedAt, then the id offset into 20 unsigned digits, so keys order by
 * (updatedAt, id) as strings and two orders changed in the same millisecond still differ.
 */
export function updateKey(updatedAt: string, id: string): string {
  return `${updatedAt}#${(BigInt(id) - INT64_MIN).toString().padStart(20, '0')}`;
}

/** The attributes a write sets besides the order's own fields, by attribute name. */
export function syncAttributes(id: string, status: OrderStatus, updatedAt: string): Record<string, string> {
  const shard = shardOf(id);
  return {
    updatedAt,
    [ORDER_INDEXES.byUpdate.partitionKey.name]: updateShard(shard),
    [ORDER_INDEXES.byStatus.partitionKey.name]: statusShard(status, shard),
    [ORDER_INDEXES.byUpdate.sortKey.name]: updateKey(updatedAt, id),
  };
}
