import { join } from 'node:path';
import type { OrdersRepository } from '../../lib/stores/orders';
import { QUANTITY_MAX } from '../../lib/contract/order';
import { IMPORT_CONCURRENCY } from '../../tools/admin/import-run';
import { runAdmin } from '../../tools/admin/run';
import { importFixture, testTarget, type Admin } from '../support/admin-harness';
import { ordersById } from '../support/orders-table';

const imports = importFixture('orders');
let repo: OrdersRepository;
beforeAll(() => {
  repo = imports.tables.stores().orders;
});
const admin: Admin = (...argv) => imports.admin(...argv);
const file = (json: string) => imports.file(json);
const orderCount = () => imports.count();

describe('orders import', () => {
  test('keeps every digit of ids beyond 2^53 and normalises shipDate to UTC', async () => {
    const path = file(`[
      {"id": 9223372036854775807, "petId": -9223372036854775808, "quantity": ${QUANTITY_MAX},
       "shipDate": "2026-11-20T12:00:00+02:00", "complete": false, "status": "pending"},
      {"id": 9007199254740993, "petId": 9007199254740993, "status": "shipped"},
      {"id": 9007199254740992, "quantity": 0, "complete": true, "shipDate": "2026-11-20T10:00:00.5Z", "status": "cancelled"}
    ]`);
    const run = await admin('orders', 'import', path);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('3 created, 0 skipped');
    expect(await repo.get('9223372036854775807')).toEqual({
      id: '9223372036854775807',
      petId: '-9223372036854775808',
      quantity: QUANTITY_MAX,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    });
    expect(await repo.get('9007199254740993')).toEqual({
      id: '9007199254740993',
      petId: '9007199254740993',
      status: 'shipped',
    });
    expect(await repo.get('9007199254740992')).toEqual({
      id: '9007199254740992',
      quantity: 0,
      complete: true,
      shipDate: '2026-11-20T10:00:00.500Z',
      status: 'cancelled',
    });
  });

  test('never overwrites an existing order: it is skipped and listed', async () => {
    await repo.create({ id: '500', status: 'shipped' });
    const path = file('[{"id": 500, "status": "pending"}, {"id": 501, "status": "pending"}]');
    const run = await admin('orders', 'import', path);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/: 1 created, 1 skipped \(already there, never overwritten: 500\)\.$/);
    expect((await repo.get('500'))?.status).toBe('shipped');
    expect((await repo.get('501'))?.status).toBe('pending');
  });

  test('imports many orders (bounded concurrency) and an empty array', async () => {
    // Three times the writes in flight: the bound is reached and refilled, as with any larger file.
    const count = 3 * IMPORT_CONCURRENCY;
    const many = Array.from({ length: count }, (_, i) => `{"id": ${10_000 + i}, "status": "pending"}`);
    const run = await admin('orders', 'import', file(`[${many.join(',')}]`));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${count} created, 0 skipped`);
    expect(run.stderr).toMatch(new RegExp(`^${count} orders in \\d+\\.\\d s \\(\\d+ orders/s\\)\\.$`));
    expect((await admin('orders', 'import', file('[]'))).stdout).toContain('0 created, 0 skipped');
  });

  test('shows its progress at each whole percent, then clears the line', async () => {
    // More orders than percents: some writes fall in a percent already shown, and draw no line.
    const count = 120;
    const many = Array.from({ length: count }, (_, i) => `{"id": ${20_000 + i}, "status": "pending"}`);
    const run = await admin('orders', 'import', file(`[${many.join(',')}]`));
    expect(run.code).toBe(0);
    expect(run.progress.at(-1)).toBe('(cleared)');
    const shown = run.progress.slice(0, -1).map((line) => {
      const match = new RegExp(`^Importing: (\\d+) of ${count} orders \\((\\d+)%\\)$`).exec(line);
      expect(match).not.toBeNull();
      return { done: Number(match?.[1]), percent: Number(match?.[2]) };
    });
    expect(shown.at(-1)).toEqual({ done: count, percent: 100 });
    // One line per whole percent reached: each shows more done and a higher percent than the last.
    expect(shown).toHaveLength(101);
    shown.slice(1).forEach((line, i) => {
      expect(line.done).toBeGreaterThan(shown[i]?.done ?? Infinity);
      expect(line.percent).toBe((shown[i]?.percent ?? NaN) + 1);
    });
  });

  test('reports every problem with its index and writes nothing', async () => {
    const before = await orderCount();
    const path = file(`[
      {"id": 600, "status": "pending"},
      {"id": "601", "status": "pending"},
      {"id": 1.5, "status": "pending"},
      {"id": 1e3, "status": "pending"},
      {"id": 9223372036854775808, "status": "pending"},
      {"status": "pending"},
      {"id": 602},
      {"id": 603, "status": "lost"},
      {"id": 604, "petId": 7.0, "status": "pending"},
      {"id": 605, "quantity": -1, "status": "pending"},
      {"id": 606, "quantity": ${QUANTITY_MAX + 1}, "status": "pending"},
      {"id": 607, "shipDate": "2026-02-30T00:00:00Z", "status": "pending"},
      {"id": 608, "shipDate": "2026-11-20T10:00:00", "status": "pending"},
      {"id": 609, "complete": "yes", "status": "pending"},
      {"id": 610, "colour": "red", "status": "pending"},
      {"id": 600, "status": "shipped"},
      {"id": 611, "petId": null, "status": "pending"},
      [612],
      "613",
      7,
      {"id": 1E2, "status": "pending"},
      {"id": -0, "status": "pending"},
      {"id": 614, "shipDate": "9999-12-31T23:59:59-23:59", "status": "pending"},
      {"id": 615, "shipDate": "0000-01-01T00:00:00+00:01", "status": "pending"}
    ]`);
    const run = await admin('orders', 'import', path);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.split('\n');
    const expected = [
      'orders[1].id: must be an integer in the int64 range',
      'orders[2].id: 1.5 is not a whole number',
      'orders[3].id: 1e3 is written with an exponent: write it in plain digits, 1000',
      'orders[4].id: 9223372036854775808 is outside the int64 range (-9223372036854775808 to 9223372036854775807)',
      'orders[5].id: is required',
      'orders[6].status: is required',
      'orders[7].status: must be one of pending, shipped, cancelled',
      'orders[8].petId: 7.0 has a decimal point: write it as 7',
      `orders[9].quantity: must be an integer from 0 to ${QUANTITY_MAX}`,
      `orders[10].quantity: must be an integer from 0 to ${QUANTITY_MAX}`,
      'orders[11].shipDate: must be an ISO 8601 date-time',
      'orders[12].shipDate: must be an ISO 8601 date-time',
      'orders[13].complete: must be true or false',
      'orders[14].colour: unknown field',
      'orders[15].id: 600 is also the id of orders[0]',
      'orders[16].petId: must be an integer in the int64 range',
      'orders[17]: must be an object',
      'orders[18]: must be an object',
      // A bare number: never its parser's internals (value, isLosslessNumber) as unknown fields.
      'orders[19]: must be an object',
      'orders[20].id: 1E2 is written with an exponent: write it in plain digits, 100',
      'orders[21].id: -0 is zero written another way: write it as 0',
      'orders[22].shipDate: is +010000-01-01T23:58:59.000Z in UTC, outside the years 0000 to 9999',
      'orders[23].shipDate: is -000001-12-31T23:59:00.000Z in UTC, outside the years 0000 to 9999',
    ];
    for (const problem of expected) expect(lines.some((line) => line.startsWith(`${path}: ${problem}`))).toBe(true);
    expect(lines).toHaveLength(expected.length + 1);
    expect(lines.at(-1)).toBe(`Error: ${path} has ${expected.length} problems; no order was written.`);
    expect(await orderCount()).toBe(before);
    expect(await repo.get('600')).toBeUndefined();
  });

  test.each([
    ['{"id": 1, "status": "pending"}', 'must be a JSON array of orders'],
    ['[{"id": 1, "status": "pending"},]', 'not valid JSON'],
    ['[{"id": 1, "id": 2, "status": "pending"}]', 'not valid JSON'],
    ['', 'not valid JSON'],
  ])('refuses the file %j', async (json, message) => {
    const run = await admin('orders', 'import', file(json));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(message);
  });

  test('a re-run summarises its skipped orders in one line: how many, and the first ids', async () => {
    // Three times the writes in flight: skips finish out of file order; the ids shown are the first in the file.
    const count = 3 * IMPORT_CONCURRENCY;
    const many = Array.from({ length: count }, (_, i) => `{"id": ${30_000 + i}, "status": "pending"}`);
    const path = file(`[${many.join(',')}]`);
    expect((await admin('orders', 'import', path)).code).toBe(0);
    const again = await admin('orders', 'import', path);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `Imported ${path} into the test tables: 0 created, ${count} skipped (already there, never overwritten: ` +
        `30000, 30001, 30002, 30003, 30004 and ${count - 5} more).`,
    );
  });

  test('Ctrl-C stops an import with one line saying how many orders were written and how to resume', async () => {
    const count = 600;
    const many = Array.from({ length: count }, (_, i) => `{"id": ${40_000 + i}, "status": "pending"}`);
    const path = file(`[${many.join(',')}]`);
    const interrupt = new AbortController();
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await runAdmin(['orders', 'import', path], {
      out: {
        out: (line) => stdout.push(line),
        err: (line) => stderr.push(line),
        // Ctrl-C when a fifth is written, as the progress line shows it.
        progress: (text) => {
          if (text.endsWith('(20%)')) interrupt.abort();
        },
      },
      local: () => testTarget(imports.tables),
      stage: () => Promise.reject(new Error('no stage')),
      signal: interrupt.signal,
    });
    expect({ code, stdout }).toEqual({ code: 130, stdout: [] });
    expect(stderr).toHaveLength(1);
    const match =
      /^Import interrupted: (\d+) of 600 orders written \((\d+) created, 0 skipped\)\. To resume, run the same import again: orders already there are skipped\.$/.exec(
        stderr[0] ?? '',
      );
    expect(match).not.toBeNull();
    const written = Number(match?.[1]);
    expect(written).toBeGreaterThanOrEqual(count / 5);
    expect(written).toBeLessThan(count);
    // One Scan of the table, not a read per order: which of this file's orders are stored.
    const table = await ordersById(imports.tables);
    expect(many.filter((_, i) => table.has(String(40_000 + i)))).toHaveLength(written);

    const resumed = await admin('orders', 'import', path);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`: ${count - written} created, ${written} skipped`);
  });

  test('lists the first 100 problems, then how many more, in a file with many', async () => {
    const bad = Array.from({ length: 250 }, (_, i) => `{"id": ${50_000 + i}, "status": "lost"}`);
    const path = file(`[${bad.join(',')}]`);
    const run = await admin('orders', 'import', path);
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n');
    expect(lines).toHaveLength(102);
    expect(lines[99]).toBe(`${path}: orders[99].status: must be one of pending, shipped, cancelled`);
    expect(lines[100]).toBe(`${path}: ... and 150 more problems`);
    expect(lines[101]).toBe(`Error: ${path} has 250 problems; no order was written.`);
  });

  test('a huge id is echoed capped; an element longer than any order is refused unread', async () => {
    const digits = '9'.repeat(50_000);
    const path = file(`[{"id": ${digits}, "status": "pending"}, {"id": 1${'0'.repeat(100_000)}, "status": "pending"}]`);
    const run = await admin('orders', 'import', path);
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toEqual([
      `${path}: orders[0].id: ${'9'.repeat(40)}... (50000 characters) is outside the int64 range (-9223372036854775808 to 9223372036854775807)`,
      `${path}: orders[1]: is 100030 characters long, more than an order can be (65536)`,
      `Error: ${path} has 2 problems; no order was written.`,
    ]);
  });

  test('a missing file is a clear failure', async () => {
    const run = await admin('orders', 'import', join(imports.dir, 'nope.json'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no such file');
  });
});

describe('orders ship', () => {
  beforeAll(() =>
    repo.putMany([
      { id: '700', status: 'pending' },
      { id: '701', status: 'cancelled' },
      { id: '-702', status: 'pending' },
    ]),
  );

  test('pending becomes shipped; shipping again is fine', async () => {
    const run = await admin('orders', 'ship', '700');
    expect(run).toMatchObject({ code: 0, stdout: 'Order 700 is shipped.' });
    // Shipping fulfils the order: complete goes with it.
    expect(await repo.get('700')).toMatchObject({ status: 'shipped', complete: true });
    const again = await admin('orders', 'ship', '700');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already shipped');
  });

  test('a negative id goes after --', async () => {
    expect((await admin('orders', 'ship', '--', '-702')).code).toBe(0);
    expect((await repo.get('-702'))?.status).toBe('shipped');
  });

  test('a cancelled order is refused and unchanged', async () => {
    const run = await admin('orders', 'ship', '701');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Order 701 is cancelled; only a pending order can be shipped');
    expect(await repo.get('701')).toEqual({ id: '701', status: 'cancelled' });
  });

  test('a missing order is not found', async () => {
    const run = await admin('orders', 'ship', '799');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No order with id 799');
    expect(await repo.get('799')).toBeUndefined();
  });

  test.each([
    ['abc', 'Order id "abc" is not a decimal integer'],
    ['', 'Order id "" is not a decimal integer'],
    ['1.5', 'Order id 1.5 is not a whole number'],
    ['1e3', 'Order id 1e3 is written with an exponent: write it in plain digits, 1000'],
    ['007', 'Order id 007 has a plus sign or leading zeros: write it as 7'],
    ['-0', 'Order id -0 is zero written another way: write it as 0'],
    ['9223372036854775808', 'Order id 9223372036854775808 is outside the int64 range'],
  ])('id %j is a usage error that says what is wrong with it', async (id, message) => {
    const run = await admin('orders', 'ship', '--', id);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
  });
});

describe('echoed input is capped', () => {
  const huge = '9'.repeat(100_000);

  test('a 100,000-digit order id is shown by its first 40 characters and its length', async () => {
    const run = await admin('orders', 'ship', huge);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`Order id ${'9'.repeat(40)}... (100000 characters) is outside the int64 range`);
    expect(run.stderr.length).toBeLessThan(300);
  });

  test('an unknown command or option of any length is shown capped', async () => {
    for (const argv of [
      ['keys', `x${huge}`],
      ['keys', 'list', `--${'y'.repeat(100_000)}`],
    ]) {
      const run = await admin(...argv);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/\.\.\. \(10000[0-9] characters\)/);
      expect(run.stderr.length).toBeLessThan(300);
    }
  });
});
