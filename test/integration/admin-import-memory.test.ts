// `orders import` streams its file: a file much larger than the heap it is given imports whole.
// Before, the file was read into one string and parsed at once (about 8x the file in memory), so
// this import died of heap exhaustion.
import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { promisify } from 'node:util';
import { createTestTables, type TestTables } from '../support/dynamo';

const run = promisify(execFile);
const root = join(__dirname, '../..');

/** The heap the import is given: about half the file, and far less than reading it whole takes. */
const HEAP_MB = 32;
// The heap is strained by the file's bytes, not by its orders (an import holds one batch of records
// and 8 bytes per id): 50 orders in 60 MB of whitespace prove the claim as 500 did, and each order
// imported costs the test about 9 ms of CPU.
const ORDERS = 50;
const FIRST_ID = 7_000_000;

let tables: TestTables;
let dir: string;
beforeAll(async () => {
  tables = await createTestTables();
  dir = await mkdtemp(join(tmpdir(), 'admin-import-memory-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await tables.drop();
});

/** About 60 MB: each order pretty-printed with wide whitespace between and inside the elements. */
async function bigFile(path: string): Promise<number> {
  const out = createWriteStream(path);
  const inside = ' '.repeat(30_000);
  const between = ' '.repeat(1_170_000);
  let bytes = 0;
  const write = async (text: string) => {
    bytes += text.length;
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('[');
  for (let i = 0; i < ORDERS; i++) {
    await write(
      `${i === 0 ? '' : ','}${between}{"id": ${FIRST_ID + i},${inside}"petId": 7, "quantity": 2, ` +
        '"shipDate": "2026-11-20T10:00:00Z", "complete": false, "status": "pending"}',
    );
  }
  await write(']\n');
  out.end();
  await once(out, 'finish');
  return bytes;
}

test(`a 60 MB file imports whole in a ${HEAP_MB} MB heap`, async () => {
  const path = join(dir, 'orders.json');
  const bytes = await bigFile(path);
  expect(bytes).toBeGreaterThan(HEAP_MB * 1024 * 1024 * 1.5);
  const env = {
    ...process.env,
    DYNAMODB_ENDPOINT: tables.endpoint,
    ORDERS_TABLE: tables.names.orders,
    API_KEYS_TABLE: tables.names.apiKeys,
    RATE_LIMIT_TABLE: tables.names.rateLimits,
  };
  const bin = join(root, 'tools/admin/bin.cjs');
  const { stdout } = await run(process.execPath, [`--max-old-space-size=${HEAP_MB}`, bin, 'orders', 'import', path], {
    cwd: root,
    env,
  });
  expect(stdout).toContain(`: ${ORDERS} created, 0 skipped.`);
  const repo = tables.stores().orders;
  expect(await repo.get(String(FIRST_ID + ORDERS - 1))).toEqual({
    id: String(FIRST_ID + ORDERS - 1),
    petId: '7',
    quantity: 2,
    shipDate: '2026-11-20T10:00:00.000Z',
    complete: false,
    status: 'pending',
  });
}, 180_000);
