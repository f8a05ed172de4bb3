// The cost model's arithmetic (infra/listing-cost.ts), from its own prices and the bench's figures.
import {
  egressPrice,
  IDLE,
  itemBytes,
  monthlyCost,
  PRICES,
  PROD_LOAD,
  STAGE_STANDING,
  TYPICAL_ORDER_ITEM_BYTES,
} from '../../infra/listing-cost';

test('an idle stage costs its standing charges alone', () => {
  const idle = monthlyCost(IDLE, STAGE_STANDING);
  expect(idle.total).toBeCloseTo(
    STAGE_STANDING.alarms * PRICES.alarmMonth + STAGE_STANDING.dashboards * PRICES.dashboardMonth,
  );
});

test('the total is the sum of its lines', () => {
  const { load: _load, total, ...lines } = monthlyCost(PROD_LOAD, STAGE_STANDING);
  expect(total).toBeCloseTo(Object.values(lines).reduce((a, b) => a + b, 0));
});

test('egress is priced through the tiers: the free tier, then each tier at its own price', () => {
  const [free, first, second] = PRICES.egressTiers;
  if (!free || !first || !second) throw new Error('three tiers expected');
  expect(egressPrice(free.upToGb)).toBe(0);
  expect(egressPrice(first.upToGb)).toBeCloseTo((first.upToGb - free.upToGb) * first.perGb);
  expect(egressPrice(first.upToGb + 1_000)).toBeCloseTo(egressPrice(first.upToGb) + 1_000 * second.perGb);
});

test('uncompressed listings cost more in every line that depends on the bytes, the same in Scan reads', () => {
  const gzip = monthlyCost(PROD_LOAD, STAGE_STANDING);
  const plain = monthlyCost({ ...PROD_LOAD, coding: 'identity' }, STAGE_STANDING);
  expect(plain.egress).toBeGreaterThan(gzip.egress);
  expect(plain.streamedBytes).toBeGreaterThan(gzip.streamedBytes);
  expect(plain.scanReads).toBe(gzip.scanReads);
});

test('Scan reads are half a unit per 4 KB of the store, for every listing', () => {
  // 4,096 orders of the typical size are exactly TYPICAL_ORDER_ITEM_BYTES units of 4 KB.
  const reads = (storeOrders: number) =>
    monthlyCost({ ...PROD_LOAD, listingsPerMonth: 1_000_000, storeOrders }, STAGE_STANDING).scanReads;
  expect(reads(4096)).toBeCloseTo((1_000_000 * (TYPICAL_ORDER_ITEM_BYTES / 2) * PRICES.dynamoReadPerMillion) / 1e6);
  expect(reads(8192)).toBeCloseTo(2 * reads(4096));
});

test("a number's size is its significant digits, two to a byte, plus one", () => {
  expect(itemBytes({ n: 12 })).toBe(1 + 2);
  expect(itemBytes({ n: 1_000 })).toBe(1 + 2);
  expect(itemBytes({ n: -123 })).toBe(1 + 3);
  expect(itemBytes({ flag: true })).toBe(4 + 1);
});
