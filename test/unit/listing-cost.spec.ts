// The bounds docs/listing-limits.md explains; its cost table is a generated block (test/unit/generated.spec.ts).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { cappedCost, dailyCostTable, uncappedCost } from '../../infra/listing-cost';
import { FIXED_LIMIT_PLANS, PLAN_LIMITS, PLAN_NAMES } from '../../lib/contract/plans';
import { dailyCostArithmetic } from '../../scripts/generate-cost-arithmetic';
import { STREAMING_LIMITS } from '../../lib/contract/streaming-limits';
import {
  ITEM_COUNT_GROWTH_MARGIN,
  MAX_ORDER_JSON_BYTES,
  UNCOMPRESSED_LISTING_MAX_ORDERS,
} from '../../lib/core/orders/listing-size';
import { orderJson } from '../../lib/contract/order';

const doc = readFileSync(path.join(__dirname, '../../docs/listing-limits.md'), 'utf8');

test('the refusal threshold: the most of the longest orders that fit in a response after the growth margin', () => {
  const fits = (orders: number) =>
    orders * MAX_ORDER_JSON_BYTES * (1 + ITEM_COUNT_GROWTH_MARGIN) <= STREAMING_LIMITS.maxResponseBytes;
  expect(fits(UNCOMPRESSED_LISTING_MAX_ORDERS)).toBe(true);
  expect(fits(UNCOMPRESSED_LISTING_MAX_ORDERS + 1)).toBe(false);
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
  for (const plan of Object.keys(PLAN_LIMITS) as (keyof typeof PLAN_LIMITS)[]) {
    const without = uncappedCost(plan);
    const withCap = cappedCost(plan);
    expect(withCap.concurrent).toBeLessThan(without.concurrent);
    expect(withCap.egressGiB).toBeLessThanOrEqual(without.egressGiB);
    expect(withCap.lambdaGbSeconds).toBeLessThan(without.lambdaGbSeconds);
  }
});

test('every declared plan reaches the cost docs: a table row each with limits of its own, an arithmetic line each', () => {
  const rows = dailyCostTable().split('\n').slice(2);
  expect(rows.map((row) => row.split('|')[1]?.trim())).toEqual(FIXED_LIMIT_PLANS);
  const arithmetic = dailyCostArithmetic();
  const named = PLAN_NAMES.filter(
    (plan) => arithmetic.includes(`The arithmetic, for ${plan} (`) || arithmetic.includes(`\n- ${plan}: `),
  );
  expect(named).toEqual(PLAN_NAMES);
});
