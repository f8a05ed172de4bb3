// Per-key fixed windows (calendar minute and calendar day, UTC) on one item per key and UTC day,
// without transactions: the admit algorithm, over the store's conditional writes (the port,
// lib/core/limiter-store.ts). The item holds the day's count, the current minute with its count
// and refusals, and any ban. One conditional write admits a request: it increments both counts
// only while the minute is current, both are below their limits and no ban is in force, so no
// interleaving can serve more than a limit. A refused request changes only the refusal count (and
// the ban when it crosses the threshold); nothing is ever given back.
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
// Exactness does not depend on replies arriving on time: the store sends each write once (see the
// port), so a write whose reply was late is never applied twice. Such a write may use up a slot
// without serving; it can never over-admit.
import type { Limits } from '../contract/plans';
import { MinutePassedError } from './limit-errors';
import {
  admitted,
  banFrom,
  banned,
  banThreshold,
  planFor,
  refusedBy,
  type Admission,
  type LimiterPlan,
} from './limiter-rules';
import type { LimiterItem, LimiterStore } from './limiter-store';
import { daysCovering, limiterKey, unixSeconds, windowAt } from './windows';

export interface LimiterDeps {
  store: LimiterStore;
  /** The limiter's clock, epoch ms: read when the request arrives and again when it is decided. */
  now: () => number;
  /** Told of a best-effort write that failed (the answer is the 429 either way). */
  warn: (what: string, error: unknown) => void;
}

/**
 * Every failed attempt means another request changed the item in between, and each change moves it
 * closer to a decision (the minute started, a count reached its limit, a ban); this bounds the loop
 * anyway.
 */
const MAX_WRITES = 4;

/** Admits one request of `keyId` or refuses it; throws MinutePassedError when it came too late. */
export async function admit(deps: LimiterDeps, keyId: string, limits: Limits): Promise<Admission> {
  const now = unixSeconds(deps.now());
  const day = windowAt('day', now);
  const item: LimiterItem = { keyId, day };
  const ourMinute = windowAt('minute', now).start;
  // Most requests fall in a minute already started: try that first, learn otherwise from the answer.
  let plan: LimiterPlan = { kind: 'admit', minute: ourMinute, newMinute: false };
  for (let write = 0; write < MAX_WRITES; write++) {
    if (plan.kind === 'banned') return banned(plan.until, limits);
    if (plan.kind === 'refuse') return refuse(deps, item, plan, ourMinute, limits, now);
    const outcome = await deps.store.take(item, { minute: plan.minute, newMinute: plan.newMinute, now, limits });
    if (outcome.applied) return admitted(outcome, plan.minute, limits, day);
    plan = planFor(outcome.found, ourMinute, limits, now, windowAt('minute', unixSeconds(deps.now())).start);
    if (plan.kind === 'too late') throw new MinutePassedError(limiterKey(keyId, day));
  }
  throw new Error(`Rate limit item ${limiterKey(keyId, day)} kept changing`);
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
  ourMinute: number,
  limits: Limits,
  now: number,
): Promise<Admission> {
  const refusal = refusedBy(plan.reason, plan.minute, limits, item.day);
  // A later stored minute is not this request's: it is refused there, and counted nowhere.
  if (plan.minute !== ourMinute) return refusal;
  const recorded = await unlessFailed(deps, 'refusal not counted', () => recordRefusal(deps.store, item, plan));
  if (recorded === 'minute moved on') return refusal;
  // Without the record's reply, the refusals already recorded, each sent as a 429, plus this one:
  // no more than the true count, and a key whose records keep losing their replies is banned too.
  const refused = recorded ?? plan.refusedBefore + 1;
  if (refused <= banThreshold(limits)) return refusal;
  const ban = await unlessFailed(deps, 'ban not written', () => imposeBan(deps, item.keyId, now));
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
): Promise<number | 'minute moved on'> {
  let refused = await store.recordRefusal(item, plan);
  // Another request started the minute first: count in it.
  if (refused === undefined && plan.newMinute) refused = await store.recordRefusal(item, { ...plan, newMinute: false });
  return refused ?? 'minute moved on';
}

/**
 * Bans the key, unless a ban is already in force; returns the end of the ban that holds, so
 * requests crossing the threshold together all report the one stored end. A ban that runs past
 * midnight is also written on the next day's item, by the request whose ban took. `started`
 * when this request's ban took.
 */
async function imposeBan(deps: LimiterDeps, keyId: string, now: number): Promise<{ until: number; started: boolean }> {
  const { from, until } = banFrom(now);
  const [today, ...later] = daysCovering(now, until);
  if (!today) throw new Error('A ban covers at least the day it starts');
  const outcome = await deps.store.writeBan({ keyId, day: today }, { from, until, now });
  if (!outcome.applied) {
    const { found } = outcome;
    return { until: found === 'absent' || found.bannedUntil === undefined ? until : found.bannedUntil, started: false };
  }
  // Today's ban took: the later days' entries only extend it past midnight.
  await Promise.all(
    later.map((day) =>
      unlessFailed(deps, 'ban not extended past midnight', () =>
        deps.store.writeBan({ keyId, day }, { from, until, now }),
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
