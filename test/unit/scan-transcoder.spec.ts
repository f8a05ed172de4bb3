import { ScanCommand } from '@aws-sdk/client-dynamodb';
import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, ORDER_STATUSES, orderJson } from '../../lib/contract/order';
import { OrdersRepository, orderFromAttributes } from '../../lib/stores/orders';
import { scanOrdersJson } from '../../lib/stores/scan-json';
import { answeringClient } from '../support/answering-client';
import { SENTINEL_ID } from '../../lib/contract/index-canary';

// The listing's transcoder (lib/stores/scan-transcoder.ts, through the Scan middleware of
// lib/stores/scan-json.ts) against the reference path it replaces (the SDK's parsed reply,
// orderFromAttributes, orderJson), on the same reply bytes: the same listing bytes, or the same
// error. The replies are given to the real SDK client as its HTTP handler would (a stream of chunks,
// test/support/answering-client.ts), so everything but the socket is the listing's own code; test/http/listing-bytes.spec.ts does the
// same through the embedded server and HTTP.

const clientAnswering = (reply: Buffer, chunk?: number, length?: (bytes: Buffer) => string | undefined) =>
  answeringClient(() => reply, chunk, length);

/** A listing's bytes, as one character a byte: equal exactly when the bytes are. */
type Outcome = { json: string } | { error: string };
const bytes = (json: string): Outcome => ({ json: Buffer.from(json).toString('latin1') });

async function outcome(run: () => Promise<Buffer>): Promise<Outcome> {
  try {
    return { json: (await run()).toString('latin1') };
  } catch (error) {
    return { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
  }
}

/** What the listing wrote before the transcoder: the SDK's items, each order's JSON after a comma. */
function reference(reply: Buffer): Promise<Outcome> {
  return outcome(async () => {
    const page = await clientAnswering(reply).send(new ScanCommand({ TableName: 'orders' }));
    return Buffer.from((page.Items ?? []).map((item) => `,${orderJson(orderFromAttributes(item))}`).join(''));
  });
}

/** What the listing writes now: the repository's listing pages, as the handler gets them. */
function listing(reply: Buffer, chunk?: number, length?: (bytes: Buffer) => string | undefined): Promise<Outcome> {
  return outcome(async () => {
    // Built by hand on purpose: on a client answering `reply` itself, with no server (a unit test).
    const orders = new OrdersRepository(clientAnswering(reply, chunk, length), 'orders');
    const pages: Buffer[] = [];
    for await (const page of orders.listingPages()) pages.push(page.json);
    return Buffer.concat(pages);
  });
}

/** Whether the transcoder wrote the reply's page (it did not decline it). */
async function transcoded(reply: Buffer): Promise<boolean> {
  const { page } = await scanOrdersJson(clientAnswering(reply), { TableName: 'orders' });
  return page !== undefined;
}

const reply = (items: unknown[], rest: object = {}) =>
  Buffer.from(JSON.stringify({ Items: items, Count: items.length, ScannedCount: items.length, ...rest }));

const ORDER = {
  id: { N: '9223372036854775807' },
  petId: { N: '-9223372036854775808' },
  quantity: { N: '3' },
  shipDate: { S: '2026-11-20T10:00:00.000Z' },
  complete: { BOOL: false },
  status: { S: 'pending' },
  updatedAt: { S: '2026-11-20T10:00:00.000Z' },
  updateShard: { S: 'all#7' },
  statusShard: { S: 'pending#7' },
  updateKey: { S: '2026-11-20T10:00:00.000Z#18446744073709551615' },
};

describe('the transcoder writes what the reference path writes', () => {
  test('an item as the store writes it, int64 extremes included: transcoded, the same bytes', async () => {
    const body = reply([ORDER, { id: { N: '-9223372036854775808' }, status: { S: 'shipped' } }, ORDER]);
    expect(await transcoded(body)).toBe(true);
    expect(await listing(body)).toEqual(await reference(body));
    const full =
      ',{"id":9223372036854775807,"petId":-9223372036854775808,"quantity":3,"shipDate":"2026-11-20T10:00:00.000Z","complete":false,"status":"pending"}';
    expect(await listing(body)).toEqual(bytes(`${full},{"id":-9223372036854775808,"status":"shipped"}${full}`));
  });

  test("the index-lag canary's sentinel is declined with its reply, and the reference path leaves it out", async () => {
    // With a status an order could have: declined for its id, not for a missing field.
    const sentinel = { ...ORDER, id: { N: SENTINEL_ID } };
    const body = reply([ORDER, sentinel, ORDER]);
    expect(await transcoded(body)).toBe(false);
    expect(await listing(body)).toEqual(await listing(reply([ORDER, ORDER])));
    expect(JSON.stringify(await listing(body))).not.toContain(SENTINEL_ID);
  });

  test('large replies one after another, each read into the buffer the one before gave back', async () => {
    const items = (count: number, shipDate: string) =>
      Array.from({ length: count }, (_, i) => ({ ...ORDER, id: { N: String(i) }, shipDate: { S: shipDate } }));
    // The longest first: a later, shorter reply is read into its buffer, whose tail holds old bytes.
    for (const body of [reply(items(900, 'a'.repeat(40))), reply(items(300, 'b')), reply(items(600, 'c'))]) {
      expect(body.length).toBeGreaterThan(64 * 1024);
      expect(await listing(body, 16 * 1024)).toEqual(await reference(body));
    }
  });

  test.each([
    ['none', () => undefined],
    ['too short', (bytes: Buffer) => String(bytes.length - 10)],
    // Its last chunk would fit where the one before did not: the bytes must keep their order.
    ['shorter by a chunk', (bytes: Buffer) => String(bytes.length - 8 * 1024)],
    ['too long', (bytes: Buffer) => String(bytes.length + 10)],
    ['not a number', () => 'lots'],
  ])('a Content-Length of %s: the bytes as they came, as the SDK reads them', async (_case, length) => {
    const body = reply(Array.from({ length: 400 }, (_, i) => ({ ...ORDER, id: { N: String(i) } })));
    expect(await listing(body, 8 * 1024, length)).toEqual(await reference(body));
  });

  test('an empty page, and a reply whose other members come back to the SDK', async () => {
    expect(await listing(reply([]))).toEqual(bytes(''));
    const last = {
      LastEvaluatedKey: { id: { N: '12' } },
      ConsumedCapacity: { TableName: 'orders', CapacityUnits: 0.5 },
    };
    const { page, lastKey } = await scanOrdersJson(clientAnswering(reply([ORDER], last)), {
      TableName: 'orders',
    });
    expect(page?.orders).toBe(1);
    expect(lastKey).toEqual({ id: { N: '12' } });
  });

  // Each field in every form a reply can carry it; DynamoDB normalises numbers (leading and trailing
  // zeroes trimmed, docs: HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number) and the
  // embedded server writes them with big.js's toFixed (no exponent), but the path must not care.
  const quantities = ['0', '-0', '7', '-12', '2147483647', '123456789012345', '1234567890123456', '9007199254740993'];
  const oddNumbers = [
    '1e3',
    '1E+21',
    '0.5',
    '-0.0',
    '007',
    '1.50',
    '1e-7',
    '12345678901234567890123456789012345678',
    '',
  ];
  const texts = [
    'é ü 中文 😀',
    'quote " and backslash \\ and slash /',
    'controls \u0000 \u0001 \n \t \u001f \u007f',
    'separators \u2028 \u2029',
    'lone \ud800 and \udfff surrogates',
    '',
  ];
  test.each([...quantities, ...oddNumbers])('quantity "%s"', async (quantity) => {
    const body = reply([{ ...ORDER, quantity: { N: quantity } }]);
    expect(await listing(body)).toEqual(await reference(body));
  });
  test.each([...quantities, ...oddNumbers])('ids "%s", written as they come', async (id) => {
    const body = reply([{ ...ORDER, id: { N: id }, petId: { N: id } }]);
    expect(await listing(body)).toEqual(await reference(body));
  });
  test.each(texts)('shipDate %j', async (shipDate) => {
    const body = reply([{ ...ORDER, shipDate: { S: shipDate } }]);
    expect(await listing(body)).toEqual(await reference(body));
  });

  test('strings written with escapes where plain text would do, and whitespace between tokens', async () => {
    const escapeAll = (text: string) =>
      [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
    const body = Buffer.from(
      ` { "Items" : [ { "status" : { "S" : "${escapeAll('cancelled')}" } ,\n "id":{"N":"${escapeAll('42')}"},` +
        `"shipDate":{"S":"a\\/b\\u00e9"}, "quantity" : {"N":"\\u0031"} } ] , "Count" : 1 }\n`,
    );
    expect(await listing(body)).toEqual(bytes(',{"id":42,"quantity":1,"shipDate":"a/bé","status":"cancelled"}'));
    expect(await listing(body)).toEqual(await reference(body));
  });

  test('bytes that are not UTF-8 are replaced as the SDK replaces them', async () => {
    const [head, tail] = reply([{ ...ORDER, shipDate: { S: 'X' }, updateKey: { S: 'Y' } }])
      .toString('latin1')
      .split('X');
    const raw = Buffer.concat([
      Buffer.from(head ?? ''),
      Buffer.from([0xff, 0xc3, 0x41, 0xe2, 0x82]),
      Buffer.from(tail ?? ''),
    ]);
    expect(await listing(raw)).toEqual(await reference(raw));
    const inOtherAttribute = Buffer.from(raw.toString('latin1').replace('"Y"', '"\xff"'), 'latin1');
    expect(await transcoded(inOtherAttribute)).toBe(true);
    expect(await listing(inOtherAttribute)).toEqual(await reference(inOtherAttribute));
  });

  test.each([
    ['a missing id', { ...ORDER, id: undefined }],
    ['an id of another type', { ...ORDER, id: { S: '1' } }],
    ['a missing status', { ...ORDER, status: undefined }],
    ['an unknown status', { ...ORDER, status: { S: 'lost' } }],
    ['a status of another type', { ...ORDER, status: { N: '1' } }],
    ['a null item', null],
  ])('%s fails both paths alike', async (_case, item) => {
    const body = reply([ORDER, item]);
    const old = await reference(body);
    expect(old).toHaveProperty('error');
    expect(await listing(body)).toEqual(old);
  });

  test.each([
    ['a nested attribute', { ...ORDER, extra: { M: { a: { L: [{ N: '1' }, { B: 'AAEC' }] } } } }],
    ['sets and binary', { ...ORDER, tags: { SS: ['a'] }, sizes: { NS: ['1'] }, blob: { B: 'AAEC' } }],
    [
      'fields of other types (absent there)',
      { ...ORDER, petId: { S: '5' }, quantity: { NULL: true }, complete: { S: 'true' } },
    ],
    ['a boolean written as a string', { ...ORDER, complete: { BOOL: 'true' } }],
    ['an attribute value with two types', { ...ORDER, petId: { N: '5', S: 'x' } }],
  ])('%s: declined or not, the same bytes', async (_case, item) => {
    const body = reply([item, ORDER]);
    expect(await listing(body)).toEqual(await reference(body));
  });

  test('a field given twice keeps the last, as JSON.parse does', async () => {
    const body = Buffer.from(
      '{"Items":[{"id":{"N":"1"},"status":{"S":"pending"},"id":{"N":"2"},"quantity":{"N":"3"},"quantity":{"N":"4"}}]}',
    );
    expect(await listing(body)).toEqual(bytes(',{"id":2,"quantity":4,"status":"pending"}'));
    expect(await listing(body)).toEqual(await reference(body));
    // The last one of another type: the field is absent, not the first one's value.
    const retyped = Buffer.from(
      '{"Items":[{"id":{"N":"1"},"status":{"S":"pending"},"complete":{"BOOL":true},"complete":{"NULL":true},"petId":{"N":"5"},"petId":{"S":"5"}}]}',
    );
    expect(await listing(retyped)).toEqual(bytes(',{"id":1,"status":"pending"}'));
    expect(await listing(retyped)).toEqual(await reference(retyped));
  });

  test.each([
    ['not JSON', 'Internal Server Error'],
    ['cut short', reply([ORDER]).subarray(0, 100).toString('latin1')],
    ['trailing text', `${reply([ORDER]).toString('latin1')} x`],
    [
      'a raw control character in a string',
      reply([{ ...ORDER, updateKey: { S: 'a' } }])
        .toString('latin1')
        .replace('"a"', '"\u0001"'),
    ],
    [
      'a bad escape',
      reply([{ ...ORDER, updateKey: { S: 'a' } }])
        .toString('latin1')
        .replace('"a"', '"\\x"'),
    ],
    ['Items twice', '{"Items":[],"Items":[]}'],
  ])('a reply %s: the same error, or the same bytes', async (_case, text) => {
    const body = Buffer.from(text, 'latin1');
    expect(await listing(body)).toEqual(await reference(body));
  });
});

// Random items and replies: the two paths agree on every one, and every reply in DynamoDB's own
// form (compact JSON, the store's types) is transcoded, not declined.

const int64 = fc.bigInt({ min: INT64_MIN, max: INT64_MAX }).map(String);
const numberText = fc.oneof(
  { weight: 4, arbitrary: int64 },
  { weight: 2, arbitrary: fc.integer({ min: -3_000_000_000, max: 3_000_000_000 }).map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('-0', '0.0', '1e3', '1E+21', '007', '1.50', '1e-130', '9.99e125', '', ' 1 ', '0x10'),
  },
);
const text = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom('"', '\\', '/', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff'),
    },
  ),
  maxLength: 12,
});
const status = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...ORDER_STATUSES) }, { weight: 1, arbitrary: text });
const anyValue: fc.Arbitrary<Record<string, unknown>> = fc.oneof(
  { weight: 4, arbitrary: text.map((S) => ({ S })) },
  { weight: 3, arbitrary: numberText.map((N) => ({ N })) },
  { weight: 2, arbitrary: fc.boolean().map((BOOL) => ({ BOOL })) },
  { weight: 1, arbitrary: fc.constant({ NULL: true }) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 2 }).map((SS) => ({ SS })) },
  { weight: 1, arbitrary: text.map((S) => ({ M: { k: { S } } })) },
);
/** A field: usually of the type the order reads it as, sometimes absent, sometimes anything. */
const field = <T>(typed: fc.Arbitrary<T>) =>
  fc.oneof(
    { weight: 6, arbitrary: typed.map((value) => value as unknown) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: anyValue },
  );
const item = fc.record({
  id: field(numberText.map((N) => ({ N }))),
  petId: field(numberText.map((N) => ({ N }))),
  quantity: field(numberText.map((N) => ({ N }))),
  shipDate: field(text.map((S) => ({ S }))),
  complete: field(fc.boolean().map((BOOL) => ({ BOOL }))),
  status: field(status.map((S) => ({ S }))),
  extra: fc.dictionary(text, anyValue, { maxKeys: 3 }),
});
type ArbitraryValue<A> = A extends fc.Arbitrary<infer T> ? T : never;
/** An item's attributes in some order, JSON.stringify leaving out the absent ones. */
const itemObject = (i: ArbitraryValue<typeof item>, order: number[]) => {
  const { extra, ...fields } = i;
  const entries = [...Object.entries(fields), ...Object.entries(extra)];
  return Object.fromEntries(order.map((k) => entries[k % entries.length]).filter((e) => e !== undefined));
};

test('random items: the same bytes or the same error as the reference path', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(fc.tuple(item, fc.array(fc.nat(), { minLength: 10, maxLength: 10 })), { maxLength: 6 }),
      fc.integer({ min: 1, max: 64 }),
      async (items, chunk) => {
        const body = reply(items.map(([i, order]) => itemObject(i, order)));
        expect(await listing(body, chunk)).toEqual(await reference(body));
      },
    ),
    { numRuns: 300 },
  );
});

/** An order as the store writes it: its fields in their types, optional ones absent at times. */
const storedItem = fc.record(
  {
    id: int64.map((N) => ({ N })),
    petId: int64.map((N) => ({ N })),
    quantity: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }).map((n) => ({ N: String(n) })),
    shipDate: text.map((S) => ({ S })),
    complete: fc.boolean().map((BOOL) => ({ BOOL })),
    status: fc.constantFrom(...ORDER_STATUSES).map((S) => ({ S })),
    updatedAt: text.map((S) => ({ S })),
    updateKey: text.map((S) => ({ S })),
  },
  { requiredKeys: ['id', 'status'] },
);

test("random orders in DynamoDB's own form: transcoded, never declined, the same bytes", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(storedItem, { maxLength: 8 }), async (items) => {
      const body = reply(items);
      expect(await transcoded(body)).toBe(true);
      expect(await listing(body)).toEqual(await reference(body));
    }),
    { numRuns: 300 },
  );
});
