// The listing's bytes against the reference path's (the SDK's parsed Scan reply, orderFromAttributes,
// orderJson: what GET /v1/store/orders wrote before lib/stores/scan-transcoder.ts), byte for byte,
// over HTTP on the embedded server, for stores holding every shape an order's item can take.
// test/unit/scan-transcoder.spec.ts does the same on reply bytes no server writes.

import { BatchWriteItemCommand, PutItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { orderJson } from '../../lib/contract/order';
import { scanOrdersJson } from '../../lib/stores/scan-json';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';
import { referencePages } from '../support/orders-table';
import { headerOf, rawRequest } from '../support/raw-http';

let stack: LocalStack;
let key: string;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('pro'));
});
afterAll(() => stack.close());

const put = (Item: Record<string, AttributeValue>) =>
  stack.tables.client.send(new PutItemCommand({ TableName: stack.tables.names.orders, Item }));

/** The listing as the reference path wrote it: the whole array, from the SDK's parse of each page. */
async function referenceListing(): Promise<Buffer> {
  const orders: string[] = [];
  for await (const page of referencePages(stack.tables.doc, stack.tables.names.orders, 1_000))
    orders.push(...page.map(orderJson));
  return Buffer.from(`[${orders.join(',')}]`);
}

/** The listing's bytes over HTTP in each coding, decoded. */
async function listings(): Promise<Record<string, Buffer>> {
  const out: Record<string, Buffer> = {};
  for (const coding of ['identity', 'gzip', 'br']) {
    const headers = { ...bearer(key), ...(coding === 'identity' ? {} : { 'Accept-Encoding': coding }) };
    const response = await rawRequest(stack.baseUrl, 'GET', '/v1/store/orders', { headers });
    expect(response.status).toBe(200);
    expect(headerOf(response, 'content-encoding')).toBe(coding === 'identity' ? undefined : coding);
    out[coding] =
      coding === 'gzip'
        ? gunzipSync(response.bytes)
        : coding === 'br'
          ? brotliDecompressSync(response.bytes)
          : response.bytes;
  }
  return out;
}

const n = (N: string): AttributeValue => ({ N });
const s = (S: string): AttributeValue => ({ S });
const INDEX_KEYS = {
  updatedAt: s('2026-11-20T10:00:00.000Z'),
  updateShard: s('all#3'),
  statusShard: s('pending#3'),
  updateKey: s('2026-11-20T10:00:00.000Z#09223372036854775807'),
};

test('every field shape the store holds: the same bytes as the reference path, transcoded', async () => {
  const shipDates = [
    '2026-11-20T10:00:00.000Z',
    'é ü 中文 😀',
    'quote " backslash \\ slash /',
    'controls \u0000 \u0001 \n \t \u001f \u007f',
    'separators \u2028 \u2029',
    'lone \ud800 and \udfff surrogates',
    '',
  ];
  // As written, before the server normalises them (leading and trailing zeroes trimmed, no exponent).
  const quantities = ['0', '-0', '3', '2147483647', '-2147483648', '1e3', '1E+21', '0.50', '007', '1e-7'];
  const quantities38 = ['12345678901234567890123456789012345678', '9007199254740993'];
  let id = 1n;
  for (const shipDate of shipDates) await put({ id: n(String(id++)), shipDate: s(shipDate), status: s('pending') });
  for (const quantity of [...quantities, ...quantities38])
    await put({ id: n(String(id++)), quantity: n(quantity), status: s('shipped'), complete: { BOOL: true } });
  await put({ id: n('9223372036854775807'), petId: n('-9223372036854775808'), status: s('cancelled') });
  await put({ id: n('-9223372036854775808'), petId: n('9223372036854775807'), status: s('pending'), ...INDEX_KEYS });
  await put({ id: n(String(id++)), status: s('pending') });
  await put({
    id: n(String(id++)),
    petId: n('42'),
    quantity: n('7'),
    shipDate: s('2026-01-01T00:00:00.000Z'),
    complete: { BOOL: false },
    status: s('pending'),
    ...INDEX_KEYS,
  });
  // Other types where an order field is expected: the reference path leaves the field out.
  await put({
    id: n(String(id)),
    petId: s('5'),
    quantity: { NULL: true },
    complete: s('true'),
    status: s('pending'),
  });
  // More than one page of 1,000 (the deployed page size), so pages join.
  for (let batch = 0; batch < 44; batch++) {
    const items = Array.from({ length: 25 }, (_, i) => ({
      id: n(String(1_000_000 + (batch * 25 + i) * 7919)),
      quantity: n(String(i % 20)),
      status: s('shipped'),
    }));
    const RequestItems = { [stack.tables.names.orders]: items.map((Item) => ({ PutRequest: { Item } })) };
    await stack.tables.client.send(new BatchWriteItemCommand({ RequestItems }));
  }

  const reply = await scanOrdersJson(stack.tables.doc, { TableName: stack.tables.names.orders, Limit: 1_000 });
  expect(reply.page?.orders).toBe(1_000);
  const reference = await referenceListing();
  for (const [coding, listed] of Object.entries(await listings())) {
    expect([coding, listed.toString('latin1')]).toEqual([coding, reference.toString('latin1')]);
  }
});

test('an item with attributes of other types (a map, a list, binary, sets): the same bytes', async () => {
  await put({
    id: n('77'),
    status: s('pending'),
    notes: { M: { a: { L: [n('1'), { B: Buffer.from([0, 1, 2]) }] } } },
    tags: { SS: ['x', 'y'] },
    sizes: { NS: ['1', '2.5'] },
  });
  const reference = await referenceListing();
  expect(reference.toString()).toContain('{"id":77,"status":"pending"}');
  for (const [coding, listed] of Object.entries(await listings())) {
    expect([coding, listed.toString('latin1')]).toEqual([coding, reference.toString('latin1')]);
  }
});
