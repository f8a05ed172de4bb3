import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
  type KeySchemaElement,
  type TableStatus,
} from '@aws-sdk/client-dynamodb';
import { createWaiter, WaiterState } from '@smithy/core/client';
import { TABLES, type TableId, type TableNames, type TableSpec } from '../../lib/contract/tables';

/**
 * How long a table may take to become ACTIVE. DynamoDB creates an on-demand table in seconds;
 * DynamoDB Local and the embedded server at once; a stock dynalite after its createTableMs (500 ms).
 */
const TABLE_READY_TIMEOUT_MS = 60_000;

/** A table that did not become usable in time: the server is far slower than any DynamoDB. */
export class TableNotReady extends Error {
  override readonly name = 'TableNotReady';
  constructor(table: string, status: string, waitedMs: number) {
    super(`Table ${table} did not become ACTIVE within ${waitedMs / 1000} s (still ${status})`);
  }
}

/** Reads and writes are served while a table is ACTIVE or UPDATING (a change in progress). */
const USABLE: ReadonlySet<TableStatus | undefined> = new Set<TableStatus | undefined>(['ACTIVE', 'UPDATING']);

/**
 * The SDK's waiter, polling 50 to 250 ms apart (its DynamoDB defaults start at 20 s). Unlike its
 * TableExists acceptor, which retries on any error, a server that fails to answer fails the start.
 */
async function waitUntilUsable(client: DynamoDBClient, TableName: string, timeoutMs: number): Promise<void> {
  let status: TableStatus | undefined;
  const waiter = { client, maxWaitTime: timeoutMs / 1000, minDelay: 0.05, maxDelay: 0.25 };
  const { state } = await createWaiter(waiter, { TableName }, async () => {
    status = (await client.send(new DescribeTableCommand({ TableName }))).Table?.TableStatus;
    return { state: USABLE.has(status) ? WaiterState.SUCCESS : WaiterState.RETRY };
  });
  if (state !== WaiterState.SUCCESS) throw new TableNotReady(TableName, status ?? 'no status', timeoutMs);
}

const keyOf = (partition: string, sort?: string): KeySchemaElement[] => [
  { AttributeName: partition, KeyType: 'HASH' },
  ...(sort === undefined ? [] : [{ AttributeName: sort, KeyType: 'RANGE' as const }]),
];

/** The table's key, its indexes' keys and projections, and their attribute types. */
function keySchema(spec: TableSpec) {
  const indexes = spec.indexes ?? [];
  const keys = [
    spec.partitionKey,
    ...(spec.sortKey ? [spec.sortKey] : []),
    ...indexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  const attributes = new Map(keys.map((key) => [key.name, key.type]));
  return {
    AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({ AttributeName, AttributeType })),
    KeySchema: keyOf(spec.partitionKey.name, spec.sortKey?.name),
    // DynamoDB refuses an empty list of indexes; an absent one is none.
    GlobalSecondaryIndexes: indexes.length
      ? indexes.map((index) => ({
          IndexName: index.name,
          KeySchema: keyOf(index.partitionKey.name, index.sortKey.name),
          Projection: index.projected
            ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.projected] }
            : { ProjectionType: 'ALL' as const },
        }))
      : undefined,
  };
}

/**
 * Creates the tables lib/contract/tables.ts declares (deployed stages get theirs from the CDK stack,
 * from the same declarations), keeps those that exist, and waits until each serves requests (else a
 * TableNotReady). `readyTimeoutMs` is for impatient tests. Returns the ids of the tables it created.
 */
export async function createTables(
  client: DynamoDBClient,
  names: TableNames,
  { readyTimeoutMs = TABLE_READY_TIMEOUT_MS } = {},
): Promise<TableId[]> {
  const created = await Promise.all(
    (Object.keys(TABLES) as TableId[]).map(async (id) => {
      const spec: TableSpec = TABLES[id];
      const TableName = names[id];
      const isNew = await client
        .send(new CreateTableCommand({ TableName, BillingMode: 'PAY_PER_REQUEST', ...keySchema(spec) }))
        .then(
          () => true,
          (error: unknown) => {
            if (error instanceof ResourceInUseException) return false;
            throw error;
          },
        );
      await waitUntilUsable(client, TableName, readyTimeoutMs);
      if (spec.ttlAttribute !== undefined) {
        const TimeToLiveSpecification = { AttributeName: spec.ttlAttribute, Enabled: true };
        // dynalite does not implement TTL; expiry is then only a storage concern.
        await client.send(new UpdateTimeToLiveCommand({ TableName, TimeToLiveSpecification })).catch(() => undefined);
      }
      return isNew ? [id] : [];
    }),
  );
  return created.flat();
}
