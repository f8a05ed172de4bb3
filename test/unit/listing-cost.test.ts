// The figures docs/listing-limits.md gives are the ones the code computes.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cappedCost, dailyCostTable, uncappedCost } from '../../infra/listing-cost';
import { MAX_ORDER_JSON_BYTES, UNCOMPRESSED_LISTING_MAX_ORDERS } from '../../lib/core/listing-size';
import { orderJson } from '../../lib/contract/order';

const doc = readFileSync(path.join(__dirname, '../../docs/listing-limits.md'), 'utf8');

test('the cost table in docs/listing-limits.md is the one computed from the settings and the plans', () => {
  expect(doc).toContain(dailyCostTable());
});

test('the refusal threshold: 200 MiB of the longest orders, less the growth margin', () => {
  expect(MAX_ORDER_JSON_BYTES).toBe(155);
  expect(UNCOMPRESSED_LISTING_MAX_ORDERS).toBe(Math.floor((200 * 1024 * 1024) / 155 / 1.1));
  expect(doc).toContain(UNCOMPRESSED_LISTING_MAX_ORDERS.toLocaleString('en-US'));
  // No order the store can hold is longer than the one the bound is computed from.
  const longest = orderJson({
    id: '-9223372036854775808',
    petId: '-1000000000000000000',
    quantity: 2_147_483_647,
    shipDate: '9999-12-31T23:59:59.999Z',
    complete: true,
    status: 'cancelled',
  });
  expect(Buffer.byteLength(longest) + 1).toBeLessThanOrEqual(MAX_ORDER_JSON_BYTES);
});

test('the cap bounds executions and daily cost, and never raises them', () => {
  for (const plan of ['free', 'pro', 'business'] as const) {
    const without = uncappedCost(plan);
    const withCap = cappedCost(plan);
    expect(withCap.concurrent).toBeLessThan(without.concurrent);
    expect(withCap.egressGiB).toBeLessThanOrEqual(without.egressGiB);
    expect(withCap.lambdaGbSeconds).toBeLessThan(without.lambdaGbSeconds);
  }
});
