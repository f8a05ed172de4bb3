// The stage-wide cap on listings in flight, and the Retry-After of a refused key, on the embedded
// server: the stage's slots are taken before a key's, given back with them, and a key refused
// for its own cap leaves the stage's slot it took free again.

import { LISTINGS_IN_FLIGHT } from '../../lib/contract/plans';
import { stageListingsCap } from '../../lib/contract/deployment';
import {
  LEASE_EXPIRY_MARGIN_SECONDS,
  STAGE_HOLDER,
  StageListingsFullError,
  TooManyListingsError,
  type Lease,
} from '../../lib/stores/listings-in-flight';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

let tables: TestTables;
const clock = testClock();
/** A small stage, so the test fills it with a few listings. */
const STAGE_CAP = 3;
let keys = 0;
const newKey = () => `key_stage_${keys++}`;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

const stageOf = (cap = STAGE_CAP) => tables.stores({ now: clock.now, stageListingsCap: cap }).listings;

test('the cap sits below the reservation, so a refused listing still has an execution to answer in', () => {
  for (const reserved of [1, 2, 5, 50, 900]) {
    expect(stageListingsCap(reserved)).toBeGreaterThanOrEqual(1);
    if (reserved > 1) expect(stageListingsCap(reserved)).toBeLessThan(reserved);
  }
});

test('listings of different keys fill the stage; one more is refused for the stage, and a freed slot admits it', async () => {
  const listings = stageOf();
  const leases: Lease[] = [];
  for (let n = 0; n < STAGE_CAP; n++) leases.push(await listings.acquire(newKey(), LISTINGS_IN_FLIGHT.free));
  expect(await listings.held(STAGE_HOLDER, STAGE_CAP)).toBe(STAGE_CAP);
  const key = newKey();
  await expect(listings.acquire(key, LISTINGS_IN_FLIGHT.free)).rejects.toBeInstanceOf(StageListingsFullError);
  // Checked before the key's lease: the refused key holds nothing.
  expect(await listings.held(key, LISTINGS_IN_FLIGHT.free)).toBe(0);

  await leases[0]?.release();
  const admitted = await listings.acquire(key, LISTINGS_IN_FLIGHT.free);
  expect(await listings.held(key, LISTINGS_IN_FLIGHT.free)).toBe(1);
  await Promise.all([admitted, ...leases.slice(1)].map((lease) => lease.release()));
  expect(await listings.held(STAGE_HOLDER, STAGE_CAP)).toBe(0);
});

test("a key refused for its own cap gives the stage's slot back", async () => {
  const listings = stageOf();
  const key = newKey();
  const own = await Promise.all(
    Array.from({ length: LISTINGS_IN_FLIGHT.free }, () => listings.acquire(key, LISTINGS_IN_FLIGHT.free)),
  );
  await expect(listings.acquire(key, LISTINGS_IN_FLIGHT.free)).rejects.toBeInstanceOf(TooManyListingsError);
  expect(await listings.held(STAGE_HOLDER, STAGE_CAP)).toBe(LISTINGS_IN_FLIGHT.free);
  await Promise.all(own.map((lease) => lease.release()));
});

test("TOO_MANY_LISTINGS' Retry-After runs out when the first lease of the key expires", async () => {
  const { listings } = tables.stores({ now: clock.now });
  const key = newKey();
  const holdMs = 120_000;
  const lease = await listings.acquire(key, LISTINGS_IN_FLIGHT.free, holdMs);
  const refusal = async () =>
    listings.acquire(key, LISTINGS_IN_FLIGHT.free, holdMs).then(
      () => {
        throw new Error('admitted');
      },
      (error: unknown) => (error as TooManyListingsError).retryAfterSeconds,
    );
  const expiresIn = holdMs / 1000 + LEASE_EXPIRY_MARGIN_SECONDS;
  expect(await refusal()).toBe(expiresIn);
  clock.advance(100_000);
  expect(await refusal()).toBe(expiresIn - 100);
  await lease.release();
});
