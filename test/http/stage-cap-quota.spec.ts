// listOrders refused because the whole stage runs as many listings as it may (503 with
// Retry-After, issue 25) uses up none of the key's limits, like TOO_MANY_LISTINGS (issue 26): a
// client that waits and tries again is never pushed toward a rate limit or a ban by it.
import { ERRORS } from '../../lib/contract/errors';
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH } from '../../lib/contract/routes';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const STAGE_CAP = 1;
let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({ stageListingsCap: STAGE_CAP });
});
afterAll(() => stack.close());

test('a listing refused 503 for the stage uses up no slot of the key, and the key lists once the stage has room', async () => {
  const other = await stack.newKey('free');
  const { key, id } = await stack.newKey('free');
  // Another key's listing holds the stage's only slot.
  const held = await stack.app.listings.acquire(other.id, LISTINGS_IN_FLIGHT.free);
  const list = () => stack.call('GET', `${BASE_PATH}/store/orders`, bearer(key));
  for (const refused of await Promise.all(Array.from({ length: 5 }, list))) {
    await expectError(refused, ERRORS.SERVICE_UNAVAILABLE.status, 'SERVICE_UNAVAILABLE');
    expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
  }
  const refused = await list();
  await expectError(refused, ERRORS.SERVICE_UNAVAILABLE.status, 'SERVICE_UNAVAILABLE');
  expect(refused.headers.get(RATE_LIMIT_HEADERS.remaining)).toBe(String(PLAN_LIMITS.free.perMinute));
  expect(await stack.app.limiter.read(id, stack.clock.now())).toMatchObject({ day: 0, inMinute: 0, refused: 0 });
  await held.release();
  const listed = await list();
  expect(listed.status).toBe(200);
  await listed.text();
});
