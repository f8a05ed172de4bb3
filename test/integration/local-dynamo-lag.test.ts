// The embedded server no kinder than DynamoDB: global secondary indexes that lag their table, and
// writes applied after their client gave up. Private servers in this worker, on a virtual clock for
// the lag (no real waiting) and on promises the test releases for the holds.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { ORDER_INDEXES, tableNamesWithPrefix, type IndexSpec } from '../../lib/contract/tables';
import { createTables } from '../../tools/local/create-tables';
import { startEmbeddedDynamo, type HeldWrite } from '../../tools/local/embedded-dynamo';
import { startLaggingTables, type LaggingTables } from '../support/lagging-dynamo';
import { startLocalStack } from '../support/local-stack';

const MAX_LAG_MS = 1000;
const { byUpdate, byStatus } = ORDER_INDEXES;

/** An order-shaped item in both indexes: partitions `all#0` and `<status>#0`. */
function row(id: number, status: string, updatedAt: string) {
  return {
    id,
    status,
    [byUpdate.partitionKey.name]: 'all#0',
    [byStatus.partitionKey.name]: `${status}#0`,
    [byUpdate.sortKey.name]: `${updatedAt}#${String(id).padStart(20, '0')}`,
  };
}

/** An item as read back and as written compare alike (the document client reads numbers as NumberValue). */
const plain = (item: Record<string, unknown> | undefined) => item && { ...item, id: String(item.id) };

/** What one index partition shows, as `id:status`, in index order. */
async function indexed(doc: DynamoDBDocumentClient, table: string, index: IndexSpec, partition: string) {
  const { Items = [] } = await doc.send(
    new QueryCommand({
      TableName: table,
      IndexName: index.name,
      KeyConditionExpression: '#p = :p',
      ExpressionAttributeNames: { '#p': index.partitionKey.name },
      ExpressionAttributeValues: { ':p': partition },
    }),
  );
  return Items.map((item) => `${String(item.id)}:${String(item.status)}`);
}

describe('index lag', () => {
  let now = Date.UTC(2026, 10, 28, 12, 0, 0);
  /** The delays' draws in [0, 1), taken in order: each write's place in [0, MAX_LAG_MS]. */
  const draws: number[] = [];
  let tables: LaggingTables;
  const byUpdateShows = () => indexed(tables.doc, tables.names.orders, byUpdate, 'all#0');
  const byStatusShows = (status: string) => indexed(tables.doc, tables.names.orders, byStatus, `${status}#0`);
  const indexScanned = async () => {
    const scan = new ScanCommand({ TableName: tables.names.orders, IndexName: byUpdate.name });
    const { Items = [] } = await tables.doc.send(scan);
    return Items.map((item) => String(item.id)).sort();
  };
  const put = (item: Record<string, unknown>) =>
    tables.doc.send(new PutCommand({ TableName: tables.names.orders, Item: item }));

  beforeAll(async () => {
    tables = await startLaggingTables({
      indexLag: {
        maxMs: MAX_LAG_MS,
        now: () => now,
        random: () => {
          const draw = draws.shift();
          if (draw === undefined) throw new Error('The test wrote more than it drew delays for');
          return draw;
        },
      },
    });
  });
  afterAll(() => tables.close());
  beforeEach(async () => {
    // Each test starts from a settled, empty table.
    await tables.dynamo.settleIndexes();
    const { Items = [] } = await tables.doc.send(new ScanCommand({ TableName: tables.names.orders }));
    draws.push(...Items.map(() => 0));
    for (const { id } of Items)
      await tables.doc.send(new DeleteCommand({ TableName: tables.names.orders, Key: { id } }));
    await tables.dynamo.settleIndexes();
    expect(draws).toEqual([]);
  });

  test('a fresh write is in the table at once and in the indexes only once its delay has passed', async () => {
    draws.push(0.5, 0.25, 0.75);
    await put(row(1, 'placed', '2026-11-28T12:00:00.000Z'));
    await tables.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [tables.names.orders]: [
            { PutRequest: { Item: row(2, 'placed', '2026-11-28T12:00:00.001Z') } },
            { PutRequest: { Item: row(3, 'placed', '2026-11-28T12:00:00.002Z') } },
          ],
        },
      }),
    );
    // The table: GetItem, and a Scan, see every write at once.
    const got = await tables.doc.send(new GetCommand({ TableName: tables.names.orders, Key: { id: 1 } }));
    expect(plain(got.Item)).toEqual(plain(row(1, 'placed', '2026-11-28T12:00:00.000Z')));
    const scanned = await tables.doc.send(new ScanCommand({ TableName: tables.names.orders }));
    expect(scanned.Items?.map((item) => String(item.id)).sort()).toEqual(['1', '2', '3']);
    expect(await byUpdateShows()).toEqual([]);
    expect(await byStatusShows('placed')).toEqual([]);
    expect(await indexScanned()).toEqual([]);

    // Batch items draw one delay each, in the order the batch applies them (either 250 or 750 ms).
    now += 249;
    expect(await byUpdateShows()).toEqual([]);
    now += 1;
    expect(await byUpdateShows()).toHaveLength(1);
    now += 249;
    expect(await byUpdateShows()).toHaveLength(1);
    now += 1;
    expect(await byUpdateShows()).toEqual(['1:placed', expect.stringMatching(/^[23]:placed$/)]);
    expect(await byStatusShows('placed')).toHaveLength(2);
    now += 250;
    expect(await byUpdateShows()).toEqual(['1:placed', '2:placed', '3:placed']);
    expect(await indexScanned()).toEqual(['1', '2', '3']);
  });

  test("one item's changes show in order, while another item's later change may overtake them", async () => {
    draws.push(0);
    await put(row(1, 'placed', '2026-11-28T12:00:01.000Z'));
    expect(await byUpdateShows()).toEqual(['1:placed']);

    // Item 1 changes twice: the later change draws no delay, but must wait for the earlier one's.
    draws.push(1, 0);
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.names.orders,
        Key: { id: 1 },
        UpdateExpression: 'SET #s = :s, #shard = :shard',
        ExpressionAttributeNames: { '#s': 'status', '#shard': byStatus.partitionKey.name },
        ExpressionAttributeValues: { ':s': 'approved', ':shard': 'approved#0' },
      }),
    );
    await put(row(1, 'delivered', '2026-11-28T12:00:02.000Z'));
    // Item 2, written after both, draws no delay: it shows first.
    draws.push(0);
    await put(row(2, 'placed', '2026-11-28T12:00:03.000Z'));

    expect(await byUpdateShows()).toEqual(['1:placed', '2:placed']);
    expect(await byStatusShows('placed')).toEqual(['1:placed', '2:placed']);
    expect(await byStatusShows('delivered')).toEqual([]);
    now += MAX_LAG_MS - 1;
    expect(await byStatusShows('delivered')).toEqual([]);
    expect(await byStatusShows('approved')).toEqual([]);
    now += 1;
    expect(await byUpdateShows()).toEqual(['1:delivered', '2:placed']);
    expect(await byStatusShows('placed')).toEqual(['2:placed']);
    expect(await byStatusShows('approved')).toEqual([]);
    expect(await byStatusShows('delivered')).toEqual(['1:delivered']);
  });

  test('a deleted item stays in the indexes until its delay has passed', async () => {
    draws.push(0);
    await put(row(1, 'placed', '2026-11-28T12:00:04.000Z'));
    draws.push(0.5);
    await tables.doc.send(new DeleteCommand({ TableName: tables.names.orders, Key: { id: 1 } }));
    const got = await tables.doc.send(new GetCommand({ TableName: tables.names.orders, Key: { id: 1 } }));
    expect(got.Item).toBeUndefined();
    expect(await byUpdateShows()).toEqual(['1:placed']);
    now += MAX_LAG_MS / 2;
    expect(await byUpdateShows()).toEqual([]);
  });

  test('settleIndexes() shows every change kept back, the clock standing still', async () => {
    draws.push(1, 1, 0.5);
    await put(row(1, 'placed', '2026-11-28T12:00:05.000Z'));
    await put(row(2, 'approved', '2026-11-28T12:00:06.000Z'));
    await put(row(1, 'delivered', '2026-11-28T12:00:07.000Z'));
    expect(await byUpdateShows()).toEqual([]);
    await tables.dynamo.settleIndexes();
    expect(await byUpdateShows()).toEqual(['2:approved', '1:delivered']);
    expect(await byStatusShows('placed')).toEqual([]);
  });
});

/** Resolves with each hold asked; the test ends each with the release it was given. */
function holdsAsked() {
  const asked: { write: HeldWrite; release: () => void }[] = [];
  let next: (() => void) | undefined;
  return {
    hold: (write: HeldWrite): Promise<void> =>
      new Promise<void>((release) => {
        asked.push({ write, release });
        next?.();
      }),
    /** The next hold asked (or the one already waiting). */
    async nextHeld(): Promise<{ write: HeldWrite; release: () => void }> {
      if (asked.length === 0) await new Promise<void>((resolve) => (next = resolve));
      const held = asked.shift();
      if (held === undefined) throw new Error('No hold was asked');
      return held;
    },
  };
}

/** Reads until `read` gives something other than undefined: a request at a time, no timer. */
async function untilDefined<T>(read: () => Promise<T | undefined>, attempts = 500): Promise<T> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const value = await read();
    if (value !== undefined) return value;
  }
  throw new Error(`Still undefined after ${attempts} reads`);
}

describe('held writes', () => {
  test('a held write is applied once released, although its client gave up and hung up; other requests go on', async () => {
    const holds = holdsAsked();
    // Only the first PutItem is held; the other writes go through at once.
    let first = true;
    const tables = await startLaggingTables({
      holdWrites: (write) => {
        if (!first) return undefined;
        first = false;
        return holds.hold(write);
      },
    });
    try {
      const getOrder = (id: number) =>
        tables.doc.send(new GetCommand({ TableName: tables.names.orders, Key: { id } })).then(({ Item }) => Item);
      const gaveUp = new AbortController();
      const late = tables.doc.send(new PutCommand({ TableName: tables.names.orders, Item: row(7, 'placed', 'a') }), {
        abortSignal: gaveUp.signal,
      });
      const { write, release } = await holds.nextHeld();
      expect(write.operation).toBe('PutItem');
      expect(write.table).toBe(tables.names.orders);
      expect(JSON.parse(write.body)).toMatchObject({ TableName: tables.names.orders, Item: { id: { N: '7' } } });
      gaveUp.abort();
      await expect(late).rejects.toThrow();

      // Meanwhile the server answers, and applies writes not held.
      await tables.doc.send(new PutCommand({ TableName: tables.names.orders, Item: row(8, 'placed', 'b') }));
      expect(await getOrder(8)).toBeDefined();
      expect(await getOrder(7)).toBeUndefined();

      release();
      expect(plain(await untilDefined(() => getOrder(7)))).toEqual(plain(row(7, 'placed', 'a')));
    } finally {
      await tables.close();
    }
  });

  test('a BatchWriteItem is held whole, and names its one table', async () => {
    const holds = holdsAsked();
    const tables = await startLaggingTables({ holdWrites: holds.hold });
    try {
      const batch = tables.doc.send(
        new BatchWriteCommand({
          RequestItems: { [tables.names.orders]: [{ PutRequest: { Item: row(9, 'placed', 'c') } }] },
        }),
      );
      const { write, release } = await holds.nextHeld();
      expect(write).toMatchObject({ operation: 'BatchWriteItem', table: tables.names.orders });
      let answered = false;
      void batch.finally(() => (answered = true));
      // Round trips that an unheld write would long have been applied and answered within.
      for (let read = 0; read < 5; read++) {
        const scanned = await tables.doc.send(new ScanCommand({ TableName: tables.names.orders }));
        expect(scanned.Items).toEqual([]);
      }
      expect(answered).toBe(false);
      release();
      await batch;
      const got = await tables.doc.send(new GetCommand({ TableName: tables.names.orders, Key: { id: 9 } }));
      expect(plain(got.Item)).toEqual(plain(row(9, 'placed', 'c')));
    } finally {
      await tables.close();
    }
  });

  test('close() applies the writes still held and the index changes kept back: a restart finds both', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'lagging-dynamo-'));
    const holds = holdsAsked();
    const names = tableNamesWithPrefix('lag-close');
    const open = async (lagging: boolean) => {
      const dynamo = await startEmbeddedDynamo({
        port: 0,
        dataDir,
        ...(lagging ? { holdWrites: holds.hold, indexLag: { maxMs: 60_000, random: () => 1 } } : {}),
      });
      const client = createDynamoClient({ endpoint: dynamo.endpoint });
      return { dynamo, client, doc: createDocumentClient(client) };
    };

    const first = await open(true);
    await createTables(first.client, names);
    const gaveUp = new AbortController();
    const write = first.doc.send(new PutCommand({ TableName: names.orders, Item: row(11, 'placed', 'd') }), {
      abortSignal: gaveUp.signal,
    });
    await holds.nextHeld(); // never released: close() ends it
    gaveUp.abort();
    await expect(write).rejects.toThrow();
    first.client.destroy();
    await first.dynamo.close();

    const second = await open(false);
    try {
      expect(await indexed(second.doc, names.orders, byUpdate, 'all#0')).toEqual(['11:placed']);
    } finally {
      second.client.destroy();
      await second.dynamo.close();
    }
  });
});

test("startLocalStack({ dynamo }) serves from a private lagging server, its index lag on the stack's clock", async () => {
  const stack = await startLocalStack({ dynamo: { indexLag: { maxMs: MAX_LAG_MS, random: () => 1 } } });
  try {
    const { doc, names } = stack.tables;
    await doc.send(new PutCommand({ TableName: names.orders, Item: row(5, 'placed', 'e') }));
    expect(await indexed(doc, names.orders, byUpdate, 'all#0')).toEqual([]);
    stack.clock.advance(MAX_LAG_MS);
    expect(await indexed(doc, names.orders, byUpdate, 'all#0')).toEqual(['5:placed']);
    // The shared server of the run stays prompt: these tables are not on it.
    expect(stack.tables.endpoint).not.toBe(process.env.TEST_DYNAMODB_ENDPOINT);
  } finally {
    await stack.close();
  }
});
