// The limiter's decisions as plain functions of the stored state, the key's limits and the time:
// no I/O. The algorithm that applies them over a store is lib/core/limiter/limiter.ts; the store's
// conditional writes are declared by its port, lib/core/limiter/store.ts.
import { BAN, type Limits } from '../../contract/plans';
import type { RateLimitCode } from '../../contract/operations';
import { daysCovering, firstToRunOut, MINUTE_SECONDS, type Window, type WindowState } from './windows';

/** The limiter refuses with exactly the contract's rate-limit codes. */
export type RejectionReason = RateLimitCode;

/**
 * A refusal's `headers.resetAt` is when the refusing window (or the ban) ends; the Retry-After
 * and the final Reset are worked out when the answer is made (see `refusalAt`).
 */
export type Admission =
  | {
      admitted: true;
      headers: WindowState;
      /** Where the request was counted: what `giveBack` undoes if it is not served after all. */
      slot: AdmittedSlot;
    }
  | {
      admitted: false;
      reason: RejectionReason;
      headers: WindowState;
      /** This refusal imposed the ban it reports (the ones after it find the ban in force). */
      banStarted?: true;
    };

/** The minute and day an admitted request was counted in. */
export interface AdmittedSlot {
  minute: number;
  day: Window;
}

/** What the limiter item of a key holds for one UTC day (absent attributes read as 0). */
export interface LimiterState {
  /** Requests served today. */
  day: number;
  /** Unix seconds of the minute `inMinute` and `refused` count, if any request came today. */
  minute: number | undefined;
  inMinute: number;
  refused: number;
  bannedFrom: number | undefined;
  bannedUntil: number | undefined;
  /** The key was revoked (`keys revoke` marks the items its cached authorizations can still reach). */
  revoked: boolean;
}

/** What a failed condition told the limiter: the item, or that there is none. */
export type Found = LimiterState | 'absent';

/** How a request is to be admitted: into the stored minute, or as the first of a new minute. */
export type LimiterPlan =
  | { kind: 'admit'; minute: number; newMinute: boolean }
  | {
      kind: 'refuse';
      reason: 'RATE_LIMITED' | 'QUOTA_EXCEEDED';
      minute: number;
      newMinute: boolean;
      /** Refusals the item held for `minute` when the refusing answer was read. */
      refusedBefore: number;
    }
  | { kind: 'banned'; until: number }
  | { kind: 'too late' }
  | { kind: 'revoked' };

/**
 * What to do given the stored item, for a request that arrived at `now` (Unix seconds) in
 * `ourMinute`, decided when the limiter's clock reads `minuteNow`. The reason is the window that
 * really refused: the day only when its count has reached the day limit, the minute only when the
 * current minute is full.
 */
export function planFor(found: Found, ourMinute: number, limits: Limits, now: number, minuteNow: number): LimiterPlan {
  if (found === 'absent') return { kind: 'admit', minute: ourMinute, newMinute: true };
  // Before anything else: a revoked key has no windows left to describe, banned or not.
  if (found.revoked) return { kind: 'revoked' };
  if (isBanned(found, now)) return { kind: 'banned', until: found.bannedUntil as number };
  // A stored minute ahead of ours is the current one while our clock still reads our minute
  // (another function's clock runs a little ahead). Once our clock has passed it too, the request
  // is late, not early: its own minute is over, and serving it from the next one would refuse
  // that minute's own requests in its place, so a ban could follow from a burst split at the
  // boundary by slow replies. A day window that is full refuses it all the same.
  const ahead = found.minute !== undefined && found.minute > ourMinute;
  if (ahead && minuteNow > ourMinute && found.day < limits.perDay) return { kind: 'too late' };
  const current = found.minute !== undefined && found.minute >= ourMinute;
  const minute = current ? (found.minute as number) : ourMinute;
  const newMinute = !current;
  const reason =
    found.day >= limits.perDay
      ? 'QUOTA_EXCEEDED'
      : current && found.inMinute >= limits.perMinute
        ? 'RATE_LIMITED'
        : undefined;
  if (reason === undefined) return { kind: 'admit', minute, newMinute };
  // A ban written this second is not in force yet for requests the windows still admit; one the
  // windows refuse is told of it, and not counted again.
  if (found.bannedUntil !== undefined && found.bannedUntil > now) return { kind: 'banned', until: found.bannedUntil };
  return { kind: 'refuse', reason, minute, newMinute, refusedBefore: current ? found.refused : 0 };
}

/** A ban is in force from its first second (`bannedFrom`) until `bannedUntil`, exclusive. */
export function isBanned(state: LimiterState, now: number): boolean {
  return state.bannedUntil !== undefined && state.bannedUntil > now && (state.bannedFrom ?? 0) <= now;
}

/**
 * A ban written at `now` takes effect from the next second: requests already in flight in that
 * second, which the windows admitted before the client could see any refusal, are still served.
 */
export function banFrom(now: number): { from: number; until: number } {
  return { from: now + 1, until: now + BAN.durationSeconds };
}

/** Refusals recorded in one minute beyond this many ban the key. */
export function banThreshold(limits: Limits): number {
  return limits.perMinute * BAN.rejectedPerMinuteFactor;
}

/** The ban headers carry the per-minute limit, the bound whose abuse caused the ban. */
export function banned(until: number, limits: Limits): Admission {
  return {
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { limit: limits.perMinute, remaining: 0, resetAt: until },
  };
}

/** A served request's headers, from the counts stored after its admission in `minute` of `day`. */
export function admitted(stored: { day: number; inMinute: number }, minute: number, limits: Limits, day: Window) {
  const inMinute = {
    limit: limits.perMinute,
    remaining: Math.max(0, limits.perMinute - stored.inMinute),
    resetAt: minute + MINUTE_SECONDS,
  };
  const today = { limit: limits.perDay, remaining: Math.max(0, limits.perDay - stored.day), resetAt: day.resetAt };
  return { admitted: true, headers: firstToRunOut(inMinute, today), slot: { minute, day } } satisfies Admission;
}

/** A refusal by a window: that window's limit, nothing left, Reset at its end. */
export function refusedBy(reason: 'RATE_LIMITED' | 'QUOTA_EXCEEDED', minute: number, limits: Limits, day: Window) {
  const byMinute = reason === 'RATE_LIMITED';
  return {
    admitted: false,
    reason,
    headers: {
      limit: byMinute ? limits.perMinute : limits.perDay,
      remaining: 0,
      resetAt: byMinute ? minute + MINUTE_SECONDS : day.resetAt,
    },
  } satisfies Admission;
}

/**
 * Seconds either side of `keys revoke`'s clock that its marks also cover: the functions' clocks may
 * differ from the operator's machine's by this much (a mark missing on the day a function's clock
 * already reads would let a cached authorization through).
 */
export const REVOCATION_CLOCK_SKEW_SECONDS = 300;

/**
 * The days whose limiter items a revocation at `now` (Unix seconds) marks: every day a request on
 * an authorization cached before the revoke can still arrive in, by any function's clock. Past
 * the cache time the authorizer reads the key again and refuses it itself.
 */
export function revocationDays(now: number, cacheTtlSeconds: number): Window[] {
  return daysCovering(now - REVOCATION_CLOCK_SKEW_SECONDS, now + cacheTtlSeconds + REVOCATION_CLOCK_SKEW_SECONDS);
}
