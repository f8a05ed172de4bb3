// A 503 is not followed by the change (issue 43), through HTTP: the local gateway and handlers on a
// virtual clock (the function's deadline, the write attempts' cuts, the limiter's timing), the
// embedded server holding the cancel's writes on the same clock and applying them even after their
// client gave up (tools/local/held-calls.ts), and a log of when each write landed. A held write
// lands as late as the sync design's landing assumption allows: the landing margin after its client
// hung up, or a whole attempt (the deployed per-attempt timeout) plus that margin after it arrived.
// Then the clock runs on past everything, and no write for the order may have landed after the 503.
import { FUNCTIONS } from '../../lib/contract/deployment';
import type { TableId } from '../../lib/contract/tables';
import { DEADLINE_MARGIN_MS } from '../../lib/commons/deadline';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import { expectUnavailable } from '../support/fault-expectations';
import {
  answeredAfter,
  asLateAsAllowed,
  HELD_ORDER as ORDER,
  HELD_START as START,
  requestWithHeldWrites,
  type Hold,
} from '../support/held-writes-stack';

/** When a cancel is answered 503 at the latest: its function's timeout less the deadline margin. */
const ANSWER_BY_MS = FUNCTIONS['cancel-order'].timeoutSeconds * 1000 - DEADLINE_MARGIN_MS;

/** One DELETE of the pending order, its writes held by `hold`; the order's writes, when each landed. */
async function cancelWithHeldWrites(hold: (table: TableId | undefined, n: number) => Hold | undefined) {
  const outcome = await requestWithHeldWrites('DELETE', `/v1/store/orders/${ORDER}`, hold);
  return { ...outcome, orderWrites: outcome.landings.filter((landing) => landing.table === 'orders') };
}

test('a cancel admitted too late for its write to end before its answer: 503, and the order never changes', async () => {
  // The limiter's write is answered within its attempt timeout but late: its reply comes when too
  // little time is left for the order's write to end, the landing margin before the answer.
  const limiterLateMs = REQUEST_TIMEOUT_MS - 500;
  const outcome = await cancelWithHeldWrites((table, n) =>
    table === 'rateLimits' && n === 1 ? answeredAfter(limiterLateMs) : table === 'orders' ? asLateAsAllowed : undefined,
  );
  expectUnavailable(outcome.response, false);
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(ANSWER_BY_MS);
  expect(outcome.orderWrites.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  expect(outcome.order).toEqual({ id: ORDER, status: 'pending', updatedAt: outcome.seededAt });
}, 60_000);

test('a cancel whose every write goes unanswered: 503 by its deadline, and no write for the order lands after it', async () => {
  const outcome = await cancelWithHeldWrites((table) => (table === 'orders' ? asLateAsAllowed : undefined));
  expectUnavailable(outcome.response, true);
  expect(outcome.answeredAt - START).toBeLessThanOrEqual(ANSWER_BY_MS);
  // The cancel was sent, and landed, as late as allowed: before the 503 or with it, never after.
  expect(outcome.orderWrites.length).toBeGreaterThan(0);
  expect(outcome.orderWrites.filter((write) => write.at > outcome.answeredAt)).toEqual([]);
  // A 503 leaves the outcome unknown (the client repeats the DELETE, which is idempotent): here the
  // first attempt landed before the answer.
  expect(outcome.order?.status).toBe('cancelled');
}, 60_000);
