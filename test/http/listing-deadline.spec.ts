// The streamed v1 listing's request deadline, through HTTP (test/support/held-writes-stack.ts: the
// local stack on a virtual clock, writes held by the embedded server and landing as late as the
// landing assumption allows). What comes before the listing's first byte, the limiter's write and
// the lease's, carries the request's deadline as a buffered route's writes do: each attempt cut at
// the declared per-attempt timeout, and a 503 head given only once every write that went unanswered
// may have landed. So no write of a listing answered 503 lands after that answer.
import { SYNC_TIMING } from '../../lib/contract/sync';
import type { TableId } from '../../lib/contract/tables';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { expectUnavailable } from '../support/fault-expectations';
import { asLateAsAllowed, HELD_START as START, requestWithHeldWrites, type Hold } from '../support/held-writes-stack';
import type { HeldWrite } from '../../tools/local/embedded-dynamo';

/** One listing, its writes held by `hold`; the limiter table's writes (its count, its lease), when each landed. */
async function listWithHeldWrites(hold: (table: TableId | undefined, n: number, write: HeldWrite) => Hold | undefined) {
  const outcome = await requestWithHeldWrites('GET', '/v1/store/orders', hold);
  return { ...outcome, writes: outcome.landings.filter((landing) => landing.table === 'rateLimits') };
}

test('a listing whose limiter write goes unanswered: 503, and that write lands no later than the answer', async () => {
  const outcome = await listWithHeldWrites((table, n) =>
    table === 'rateLimits' && n === 1 ? asLateAsAllowed : undefined,
  );
  expectUnavailable(outcome.response, false);
  expect(outcome.writes.length).toBeGreaterThan(0);
  expect(outcome.writes.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  // Cut at its attempt timeout, then the landing margin: nothing waits for the listing's own deadline.
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS + SYNC_TIMING.unansweredLandingMs);
}, 60_000);

test("a listing whose lease writes go unanswered: 503 with the limiter's headers, each cut at the attempt timeout, none landing after the answer", async () => {
  const outcome = await listWithHeldWrites((table, _n, write) =>
    table === 'rateLimits' && write.operation === 'PutItem' ? asLateAsAllowed : undefined,
  );
  expectUnavailable(outcome.response, true);
  const leases = outcome.writes.filter((write) => write.operation === 'PutItem');
  // The lease and the release mark written when its reply never came.
  expect(leases.length).toBeGreaterThanOrEqual(2);
  expect(outcome.writes.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  // The lease's write and its release, each cut at its attempt timeout, then the landing margin.
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(2 * REQUEST_TIMEOUT_MS + SYNC_TIMING.unansweredLandingMs);
}, 60_000);
