// DynamoDB tables, declared once: their key schemas and the environment variables that carry
// their names. Read by the repositories, the local stack (which creates them in the embedded
// server) and the CDK stack (which provisions them).

export interface TableSpec {
  /** Environment variable that carries the table's physical name. */
  envVar: string;
  partitionKey: { name: string; type: 'S' | 'N' };
  /** Attribute holding the expiry time in Unix seconds, when the table expires items. */
  ttlAttribute?: string;
}

export const TABLES = {
  orders: { envVar: 'ORDERS_TABLE', partitionKey: { name: 'id', type: 'N' } },
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
