// DynamoDB tables, declared once: their key schemas and the environment variables that carry
// their names. Read by the repositories, the local stack (which creates them in the embedded
// server) and the CDK stack (which provisions them).
import type { OrderStatus } from './order';

export interface TableSpec {
  /** Environment variable that carries the table's physical name. */
  envVar: string;
  partitionKey: { name: string; type: 'S' | 'N' };
  /** The sort key, when items of one partition are read together (a Query). */
  sortKey?: { name: string; type: 'S' };
  /** Attribute holding the expiry time in Unix seconds, when the table expires items. */
  ttlAttribute?: string;
  /** Global secondary indexes, each projecting every attribute. */
  indexes?: readonly IndexSpec[];
  /**
   * The table's change stream (DynamoDB Streams) and what each record carries: deployed by the
   * stack, emulated by the local stack from the embedded server's writes (tools/local/change-stream.ts).
   */
  stream?: 'NEW_AND_OLD_IMAGES';
}

/**
 * A global secondary index with string keys: every attribute projected, so a page needs no further
 * reads, unless it names the attributes it carries (beside the keys).
 */
export interface IndexSpec {
  name: string;
  partitionKey: { name: string; type: 'S' };
  sortKey: { name: string; type: 'S' };
  /** Projection INCLUDE of these attributes (and the keys); ALL when absent. */
  projected?: readonly string[];
}

/**
 * Write shards of the v2 listing's indexes (docs/design.md#the-v2-listings-indexes). An order's
 * shard is its id modulo this, so its index entries stay in one shard for life; a page merges them.
 */
export const SYNC_SHARDS = 8;

/** The sort key of both indexes: `<updatedAt>#<id, offset to 20 unsigned digits>`. */
const UPDATE_KEY = { name: 'updateKey', type: 'S' } as const;

/**
 * The v2 listing's indexes on the orders table. Sparse: an order written before v2 (no updatedAt)
 * is in neither until `orders backfill-updated-at` stamps it.
 */
export const ORDER_INDEXES = {
  /** Every order by when it last changed: partition `all#<shard>`. */
  byUpdate: { name: 'by-update', partitionKey: { name: 'updateShard', type: 'S' }, sortKey: UPDATE_KEY },
  /** Orders of one status by when they last changed: partition `<status>#<shard>`. */
  byStatus: { name: 'by-status', partitionKey: { name: 'statusShard', type: 'S' }, sortKey: UPDATE_KEY },
} as const satisfies Record<string, IndexSpec>;

/** Partition key of the by-update index in one shard. */
export function updateShard(shard: number): string {
  return `all#${shard}`;
}

/** Partition key of the by-status index in one shard. */
export function statusShard(status: OrderStatus, shard: number): string {
  return `${status}#${shard}`;
}

/** The value of `enabledKey` on an enabled endpoint: the one partition of the sparse `enabled` index. */
export const ENABLED_ENDPOINTS_PARTITION = 'enabled';

/**
 * The webhook endpoints table's index of every enabled endpoint, for the delivery's fan-out
 * (lib/stores/webhook-endpoints.ts listEnabled). Sparse: a disabled endpoint has no `enabledKey`.
 * It carries what fan-out needs and never a signing secret; one partition, read through a short
 * cache (WEBHOOK_LIMITS.enabledEndpointsCacheMs), written only when an endpoint changes.
 */
export const WEBHOOK_ENDPOINT_INDEXES = {
  enabled: {
    name: 'enabled',
    partitionKey: { name: 'enabledKey', type: 'S' },
    sortKey: { name: 'id', type: 'S' },
    projected: ['url', 'eventTypes'],
  },
} as const satisfies Record<string, IndexSpec>;

export const TABLES = {
  orders: {
    envVar: 'ORDERS_TABLE',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [ORDER_INDEXES.byUpdate, ORDER_INDEXES.byStatus],
    // Read by the sync watch (functions/sync-watch.ts) and event delivery's fan-out
    // (functions/webhook-fanout.ts): both images, so a consumer sees what changed without reading the table.
    stream: 'NEW_AND_OLD_IMAGES',
  },
  /** The deprecated GET /pets/{petId}'s own table, keyed like orders by an int64 id. */
  pets: { envVar: 'PETS_TABLE', partitionKey: { name: 'id', type: 'N' } },
  apiKeys: { envVar: 'API_KEYS_TABLE', partitionKey: { name: 'id', type: 'S' } },
  rateLimits: {
    envVar: 'RATE_LIMIT_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
  /**
   * Webhook endpoints, one partition per owning key: its endpoints in `slot#<n>` items (n below
   * WEBHOOK_LIMITS.endpointsPerKey, so the cap holds under concurrent creates), and the ids it
   * deleted lately in `deleted#<id>` items that expire.
   */
  webhookEndpoints: {
    envVar: 'WEBHOOK_ENDPOINTS_TABLE',
    partitionKey: { name: 'ownerKeyId', type: 'S' },
    sortKey: { name: 'entry', type: 'S' },
    ttlAttribute: 'expiresAt',
    indexes: [WEBHOOK_ENDPOINT_INDEXES.enabled],
  },
  /**
   * Event delivery's own state (lib/stores/webhook-deliveries.ts): per endpoint and order, the
   * change the receiver acknowledged last and the lease of the one attempt in flight; per endpoint,
   * its recent attempts (the deliveries log). Both expire (TTL).
   */
  webhookDeliveries: {
    envVar: 'WEBHOOK_DELIVERIES_TABLE',
    partitionKey: { name: 'pk', type: 'S' },
    sortKey: { name: 'sk', type: 'S' },
    ttlAttribute: 'expiresAt',
  },
} as const satisfies Record<string, TableSpec>;

/** The environment variables that carry the table names, in declaration order. */
export const TABLE_ENV_VARS: readonly string[] = Object.values(TABLES).map((table) => table.envVar);

export type TableId = keyof typeof TABLES;
export type TableNames = Record<TableId, string>;

/** Table names for one local or test environment, from a prefix. */
export function tableNamesWithPrefix(prefix: string): TableNames {
  return {
    orders: `${prefix}-orders`,
    pets: `${prefix}-pets`,
    apiKeys: `${prefix}-api-keys`,
    rateLimits: `${prefix}-rate-limits`,
    webhookEndpoints: `${prefix}-webhook-endpoints`,
    webhookDeliveries: `${prefix}-webhook-deliveries`,
  };
}
