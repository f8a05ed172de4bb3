// Per-key fixed windows (calendar minute and calendar day, UTC) on one item per key and UTC day,
// without transactions: the admit algorithm, over the store's conditional writes (the port,
// lib/core/limiter/store.ts). The item holds the day's count, the current minute with its count
// and refusals, and any ban. One conditional write admits a request: it increments both counts
// only while the minute is current, both are below their limits and no ban is in force, so no
// interleaving can serve more than a limit. A refused request changes only the refusal count (and
// the ban when it crosses the threshold); only a request that cannot be served in time gives its
// own slot back (below).
//
// A ban follows only from refusals the client was sent, each in the minute window it was sent for.
// So a refusal is recorded by a write of its own, once the refusing answer (a failed condition, or
// the item read after it) is known and the 429 is the only answer left to give, and that write is
// conditional on the stored minute being the refused request's own minute:
// - A request whose admission failed (error, timeout, lost reply) is answered 503 and records
//   nothing, whatever it might have been refused for.
// - A refusal whose recording fails or whose reply is lost is still answered 429, unrecorded or
//   recorded: either way the client is sent the refusal the item may hold. Its count unknown, it
//   takes the refusals the item held before it, plus itself, for the ban threshold.
// - A request that meets a stored minute later than its own is not recorded there: counting it
//   there charged the new minute with the old minute's late refusals and banned keys that never
//   exceeded a limit twice in one minute. If the limiter's clock has passed the request's minute
//   too, its replies were slow and it is answered 503 (MinutePassedError), not served from the new
//   minute's limit, which would refuse that minute's own requests in its place; if not, another
//   function's clock runs a little ahead, and the stored minute is the current one.
// Refusals can thus be under-counted, never over-counted: a late ban, never a false one. Recording
// happens before the 429 leaves the function; one lost after that (the function or the network
// failing on the way out) still counts, as nothing on this side can tell.
//
// A request is admitted only when it can still be served before its deadline (lib/core/limiter/budget.ts):
// no admitting write is sent once there is no time left for the work after it, and a slot whose
// reply came too late for the work is given back by a write of its own, the request answered 503
// uncounted (its client's retry, sent with a fresh deadline, can take the slot again).
// Giving back only undoes this request's own increment, so it cannot make a window serve more
// than its limit; a give-back whose reply is lost may leave the slot used, as a lost reply does.
//
// Revocation rides on the same write: `keys revoke` marks the key's items (markRevoked), the
// admitting write is conditional on no mark, and the item its failure brings back says revoked, so
// a key revoked while API Gateway still caches its authorization is refused (KeyRevokedError, a
// 401) with no call beyond the one every request makes, and counted nowhere.
//
// Exactness does not depend on replies arriving on time: the store sends each write once (see the
// port), so a write whose reply was late is never applied twice. Such a write may use up a slot
// without serving; it can never over-admit. Every store call carries the request's deadline
// (`TimeBudget.deadline`): none is sent after its answer, and none can land after its 503.
import type { Deadline } from '../../commons/deadline';
import type { Limits } from '../../contract/plans';
import { ItemKeptChangingError, KeyRevokedError, MinutePassedError, NoTimeToServeError } from './limit-errors';
import { RecentLatency, timeFor, timedStore, type TimeBudget } from './budget';
import {
  admitted,
  banFrom,
  banned,
  banThreshold,
  planFor,
  refusedBy,
  revocationDays,
  type Admission,
  type AdmittedSlot,
  type LimiterPlan,
} from './rules';
import type { LimiterItem, LimiterStore } from './store';
import { daysCovering, limiterKey, unixSeconds, windowAt } from './windows';

export interface LimiterDeps {
  store: LimiterStore;
  /** The limiter's clock, epoch ms: read when the request arrives and again when it is decided. */
  now: () => number;
  /** Told of a best-effort write that failed (the answer is the 429 either way). */
  warn: (what: string, error: unknown) => void;
  /** The slowest recent store call, in ms, for the time budget; 0 (no estimate) when absent. */
  slowestCallMs?: () => number;
}

/**
 * Every failed attempt means another request changed the item in between, and each change moves it
 * closer to a decision (the minute started, a count reached its limit, a ban); this bounds the loop
 * anyway.
 */
const MAX_WRITES = 4;

/**
 * Admits one request of `keyId` or refuses it; throws MinutePassedError when it came too late,
 * NoTimeToServeError when, with `budget`, it could no longer be served in time (not counted), and
 * KeyRevokedError when the key is marked revoked.
 */
export async function admit(deps: LimiterDeps, keyId: string, limits: Limits, budget?: TimeBudget): Promise<Admission> {
  const now = unixSeconds(budget?.arrivedAtMs ?? deps.now());
  const day = windowAt('day', now);
  const item: LimiterItem = { keyId, day };
  const ourMinute = windowAt('minute', now).start;
  const inTime = (calls: number) => !budget || timeFor(budget, calls, deps.slowestCallMs?.() ?? 0);
  const deadline = budget?.deadline;
  // Most requests fall in a minute already started: try that first, learn otherwise from the answer.
  let plan: LimiterPlan = { kind: 'admit', minute: ourMinute, newMinute: false };
  for (let write = 0; write < MAX_WRITES; write++) {
    if (plan.kind === 'revoked') throw new KeyRevokedError(limiterKey(keyId, day));
    if (plan.kind === 'banned') return banned(plan.until, limits);
    if (plan.kind === 'refuse')
      return refuse(deps, item, plan, { ourMinute, limits, now, timeToRecord: inTime(1) }, deadline);
    // Not even time for the work, however quick this write's reply: answer now, counted nowhere.
    if (!inTime(budget?.workCalls ?? 0)) throw new NoTimeToServeError(limiterKey(keyId, day));
    const { minute } = plan;
    const outcome = await deps.store.take(item, { minute, newMinute: plan.newMinute, now, limits }, deadline);
    if (outcome.applied) {
      if (inTime(budget?.workCalls ?? 0)) return admitted(outcome, minute, limits, day);
      // The reply came too late for the work to finish: the slot goes back, the request is not served.
      await unlessFailed(deps, 'slot not given back', () => deps.store.giveBack(item, { minute }, deadline));
      throw new NoTimeToServeError(limiterKey(keyId, day));
    }
    plan = planFor(outcome.found, ourMinute, limits, now, windowAt('minute', unixSeconds(deps.now())).start);
    if (plan.kind === 'too late') throw new MinutePassedError(limiterKey(keyId, day));
  }
  if (plan.kind === 'revoked') throw new KeyRevokedError(limiterKey(keyId, day));
  throw new ItemKeptChangingError(limiterKey(keyId, day));
}

/**
 * Records the refusal in the request's own minute, and bans the key when the recorded refusals
 * pass the threshold. Only refusals by a window count: requests refused for the ban itself do
 * not, so a ban ends on time however hard the key keeps knocking. From here on the answer is a
 * 429 whatever the store does (see the top of this file): a failed recording or ban write makes a
 * refusal uncounted, never a 503.
 */
async function refuse(
  deps: LimiterDeps,
  item: LimiterItem,
  plan: Extract<LimiterPlan, { kind: 'refuse' }>,
  { ourMinute, limits, now, timeToRecord }: { ourMinute: number; limits: Limits; now: number; timeToRecord: boolean },
  deadline: Deadline | undefined,
): Promise<Admission> {
  const refusal = refusedBy(plan.reason, plan.minute, limits, item.day);
  // A later stored minute is not this request's: it is refused there, and counted nowhere. Nor is a
  // refusal with no time left to record it: its record could land after the deadline's 503.
  if (plan.minute !== ourMinute || !timeToRecord) return refusal;
  const recorded = await unlessFailed(deps, 'refusal not counted', () =>
    recordRefusal(deps.store, item, plan, deadline),
  );
  if (recorded === 'minute moved on') return refusal;
  // Without the record's reply, the refusals already recorded, each sent as a 429, plus this one:
  // no more than the true count, and a key whose records keep losing their replies is banned too.
  const refused = recorded ?? plan.refusedBefore + 1;
  if (refused <= banThreshold(limits)) return refusal;
  const ban = await unlessFailed(deps, 'ban not written', () => imposeBan(deps, item.keyId, now, deadline));
  if (ban === undefined) return refusal;
  return { ...banned(ban.until, limits), ...(ban.started ? { banStarted: true as const } : {}) };
}

/**
 * Refusals recorded in the minute, this one included, unless the stored minute is no longer the
 * refusal's (it moved on meanwhile: the refusal belongs to no minute still counting).
 */
async function recordRefusal(
  store: LimiterStore,
  item: LimiterItem,
  plan: { minute: number; newMinute: boolean },
  deadline: Deadline | undefined,
): Promise<number | 'minute moved on'> {
  let refused = await store.recordRefusal(item, plan, deadline);
  // Another request started the minute first: count in it.
  if (refused === undefined && plan.newMinute)
    refused = await store.recordRefusal(item, { ...plan, newMinute: false }, deadline);
  return refused ?? 'minute moved on';
}

/**
 * Bans the key, unless a ban is already in force; returns the end of the ban that holds, so
 * requests crossing the threshold together all report the one stored end. A ban that runs past
 * midnight is also written on the next day's item, by the request whose ban took. `started`
 * when this request's ban took.
 */
async function imposeBan(
  deps: LimiterDeps,
  keyId: string,
  now: number,
  deadline: Deadline | undefined,
): Promise<{ until: number; started: boolean }> {
  const { from, until } = banFrom(now);
  const [today, ...later] = daysCovering(now, until);
  if (!today) throw new Error('A ban covers at least the day it starts');
  const outcome = await deps.store.writeBan({ keyId, day: today }, { from, until, now }, deadline);
  if (!outcome.applied) {
    const { found } = outcome;
    return { until: found === 'absent' || found.bannedUntil === undefined ? until : found.bannedUntil, started: false };
  }
  // Today's ban took: the later days' entries only extend it past midnight.
  await Promise.all(
    later.map((day) =>
      unlessFailed(deps, 'ban not extended past midnight', () =>
        deps.store.writeBan({ keyId, day }, { from, until, now }, deadline),
      ),
    ),
  );
  return { until, started: true };
}

/**
 * Runs a write whose failure must not change the answer (the 429 is given either way): any error,
 * a timeout or a lost reply included, gives undefined. Whether the write was applied is unknown;
 * the refusal may or may not have been counted.
 */
async function unlessFailed<T>(deps: Pick<LimiterDeps, 'warn'>, what: string, write: () => Promise<T>) {
  try {
    return await write();
  } catch (error) {
    deps.warn(what, error);
    return undefined;
  }
}

/**
 * Gives back the slot of a request admitted but then refused for something other than the windows
 * (its listing had no room), so the refusal costs the key nothing. Best effort: a failure leaves
 * the slot used, as a lost reply does.
 */
export async function giveBack(
  deps: LimiterDeps,
  keyId: string,
  slot: AdmittedSlot,
  deadline?: Deadline,
): Promise<void> {
  await unlessFailed(deps, 'slot not given back', () =>
    deps.store.giveBack({ keyId, day: slot.day }, { minute: slot.minute }, deadline),
  );
}

/**
 * Marks `keyId` revoked on every day's item a request on an authorization cached before `nowMs`
 * can reach (`revocationDays`), so its next admitting write fails. Each mark is sent once; a
 * failure is thrown: the revoke is not done until every mark is.
 */
export async function markRevoked(store: LimiterStore, keyId: string, nowMs: number, cacheTtlSeconds: number) {
  const now = unixSeconds(nowMs);
  await Promise.all(revocationDays(now, cacheTtlSeconds).map((day) => store.markRevoked({ keyId, day }, { at: now })));
}

/**
 * The algorithm over `store`, each store call timed by `elapsedMs` (a monotonic clock) for the
 * time budget: what RateLimiter runs over DynamoDB, and the tests over the in-memory store.
 */
export function timedLimiter(
  store: LimiterStore,
  clocks: { now: () => number; elapsedMs: () => number },
  warn: LimiterDeps['warn'],
) {
  const latency = new RecentLatency();
  const deps: LimiterDeps = {
    store: timedStore(store, latency, clocks.elapsedMs),
    now: clocks.now,
    warn,
    slowestCallMs: () => latency.slowestMs(),
  };
  return {
    store: deps.store,
    now: clocks.now,
    admit: (keyId: string, limits: Limits, budget?: TimeBudget) => admit(deps, keyId, limits, budget),
    giveBack: (keyId: string, slot: AdmittedSlot, deadline?: Deadline) => giveBack(deps, keyId, slot, deadline),
    markRevoked: (keyId: string, nowMs: number, cacheTtlSeconds: number) =>
      markRevoked(deps.store, keyId, nowMs, cacheTtlSeconds),
  };
}
