// DynamoDB tables, declared once: their key schemas and the environment variables that carry
// their names. Read by the repositories, the local stack (which creates them in the embedded
// server) and the CDK stack (which provisions them).

export interface TableSpec {
  /** Environment variable that carries the table's physical name. */
  envVar: string;
  partitionKey: { name: string; type: 'S' | 'N' };
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

/** A global secondary index: string keys, every attribute projected, so a page needs no further reads. */
export interface IndexSpec {
  name: string;
  partitionKey: { name: string; type: 'S' };
  sortKey: { name: string; type: 'S' };
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

export const TABLES = {
  orders: {
    envVar: 'ORDERS_TABLE',
    partitionKey: { name: 'id', type: 'N' },
    indexes: [ORDER_INDEXES.byUpdate, ORDER_INDEXES.byStatus],
    // Read by the sync watch (functions/sync-watch.ts), and later by event delivery: both images,
    // so a consumer sees what changed without reading the table.
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
  };
}
