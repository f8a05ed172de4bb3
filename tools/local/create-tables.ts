import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type CreateTableCommandInput,
  type DynamoDBClient,
  type TableStatus,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type TableId, type TableNames, type TableSpec } from '../../lib/contract/tables';

/**
 * How long a table may take to become ACTIVE. DynamoDB creates an on-demand table in seconds;
 * DynamoDB Local and the embedded server at once; a stock dynalite after its createTableMs (500 ms).
 */
export const TABLE_READY_TIMEOUT_MS = 60_000;
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1_000;

/** A table that did not become usable in time: the server is far slower than any DynamoDB. */
export class TableNotReady extends Error {
  override readonly name = 'TableNotReady';
  constructor(
    readonly table: string,
    readonly status: string,
    readonly waitedMs: number,
  ) {
    super(`Table ${table} did not become ACTIVE within ${waitedMs / 1000} s (still ${status})`);
  }
}

/** Reads and writes are served while a table is ACTIVE or UPDATING (a change in progress). */
const USABLE: ReadonlySet<TableStatus | undefined> = new Set<TableStatus | undefined>(['ACTIVE', 'UPDATING']);

async function waitUntilUsable(client: DynamoDBClient, TableName: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  let delay = FIRST_POLL_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    if (USABLE.has(Table?.TableStatus)) return;
    if (Date.now() >= until) throw new TableNotReady(TableName, Table?.TableStatus ?? 'no status', timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(delay, Math.max(0, until - Date.now()))));
    delay = Math.min(delay * 2, MAX_POLL_MS);
  }
}

/** The table's key, its indexes' keys (every attribute projected) and their attribute types. */
function keySchema(
  spec: TableSpec,
): Pick<CreateTableCommandInput, 'AttributeDefinitions' | 'KeySchema'> &
  Partial<Pick<CreateTableCommandInput, 'GlobalSecondaryIndexes'>> {
  const indexes = spec.indexes ?? [];
  const attributes = new Map<string, 'S' | 'N'>([[spec.partitionKey.name, spec.partitionKey.type]]);
  for (const index of indexes) {
    attributes.set(index.partitionKey.name, index.partitionKey.type);
    attributes.set(index.sortKey.name, index.sortKey.type);
  }
  return {
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: [{ AttributeName: spec.partitionKey.name, KeyType: 'HASH' }],
    ...(indexes.length
      ? {
          GlobalSecondaryIndexes: indexes.map((index) => ({
            IndexName: index.name,
            KeySchema: [
              { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
              { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
            ],
            Projection: { ProjectionType: 'ALL' as const },
          })),
        }
      : {}),
  };
}

export interface CreateTablesOptions {
  /** How long each table may take to become ACTIVE; TABLE_READY_TIMEOUT_MS unless a test is impatient. */
  readyTimeoutMs?: number;
}

/**
 * Creates the tables lib/contract/tables.ts declares (deployed stages get theirs from the CDK stack,
 * from the same declarations), keeps those that exist, and waits until each serves requests (else a
 * TableNotReady). Returns the ids of the tables it created.
 */
export async function createTables(
  client: DynamoDBClient,
  names: TableNames,
  options: CreateTablesOptions = {},
): Promise<TableId[]> {
  const created = await Promise.all(
    (Object.keys(TABLES) as TableId[]).map(async (id) => {
      const spec = TABLES[id];
      const TableName = names[id];
      let isNew = false;
      try {
        await client.send(
          new CreateTableCommand({
            TableName,
            BillingMode: 'PAY_PER_REQUEST',
            ...keySchema(spec),
          }),
        );
        isNew = true;
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
      await waitUntilUsable(client, TableName, options.readyTimeoutMs ?? TABLE_READY_TIMEOUT_MS);
      if ('ttlAttribute' in spec) {
        await client
          .send(
            new UpdateTimeToLiveCommand({
              TableName,
              TimeToLiveSpecification: { AttributeName: spec.ttlAttribute, Enabled: true },
            }),
          )
          // dynalite does not implement TTL; expiry is then only a storage concern.
          .catch(() => undefined);
      }
      return isNew ? [id] : [];
    }),
  );
  return created.flat();
}
