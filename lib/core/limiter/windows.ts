// Window arithmetic for the rate limiter: pure functions of the time, no I/O. Windows are fixed
// calendar windows in UTC; Unix time has no leap seconds, so every minute is 60 s and every day
// 86,400 s, and flooring Unix seconds gives the calendar boundaries exactly.

export const MINUTE_SECONDS = 60;
export const DAY_SECONDS = 86_400;

/**
 * Counter items live this long past the end of what they record. Lambdas' clocks may differ a
 * little, so a window's item must outlive the window's end on the fastest clock.
 */
export const EXPIRY_GRACE_SECONDS = 60;

export type WindowKind = 'minute' | 'day';

export interface Window {
  kind: WindowKind;
  /** Unix seconds of the window's first second. */
  start: number;
  /** Unix seconds at which the window ends and the next one begins. */
  resetAt: number;
}

/** What a response tells the client about one window. */
export interface WindowState {
  limit: number;
  remaining: number;
  /** Unix seconds when this window resets. */
  resetAt: number;
}

const LENGTH: Record<WindowKind, number> = { minute: MINUTE_SECONDS, day: DAY_SECONDS };

export function unixSeconds(epochMs: number): number {
  return Math.floor(epochMs / 1000);
}

export function windowAt(kind: WindowKind, nowSeconds: number): Window {
  const length = LENGTH[kind];
  const start = Math.floor(nowSeconds / length) * length;
  return { kind, start, resetAt: start + length };
}

/** Partition key of a key's limiter item for one UTC day: one item per key and day. */
export function limiterKey(keyId: string, day: Pick<Window, 'start'>): string {
  return `${keyId}#${day.start}`;
}

/** TTL of an item that must last until `untilSeconds`. */
export function expiresAt(untilSeconds: number): number {
  return untilSeconds + EXPIRY_GRACE_SECONDS;
}

/**
 * Whole seconds from now until a Unix time, rounded up so a client that waits that long is past
 * it, and at least 1 so `Retry-After: 0` never invites an immediate retry.
 */
export function secondsUntil(targetSeconds: number, nowMs: number): number {
  return Math.max(1, Math.ceil((targetSeconds * 1000 - nowMs) / 1000));
}

/**
 * A refusal's headers as they stand when the answer is made, not when the request started:
 * `Reset` is never in the past (a window that ended while the request waited reports the next
 * second), and `Retry-After` is `Reset - now` rounded up, at least 1.
 */
export function refusalAt(state: WindowState, nowMs: number): { headers: WindowState; retryAfterSeconds: number } {
  const resetAt = Math.max(state.resetAt, unixSeconds(nowMs) + 1);
  return { headers: { ...state, resetAt }, retryAfterSeconds: secondsUntil(resetAt, nowMs) };
}

/** The day windows a ban from `fromSeconds` to `untilSeconds` (exclusive) overlaps. */
export function daysCovering(fromSeconds: number, untilSeconds: number): Window[] {
  const days: Window[] = [];
  for (let day = windowAt('day', fromSeconds); day.start < untilSeconds; day = windowAt('day', day.resetAt)) {
    days.push(day);
  }
  return days;
}

/**
 * The window that runs out first: fewer requests left; on a tie the day window, because waiting
 * for it to reset is the longer wait.
 */
export function firstToRunOut(minute: WindowState, day: WindowState): WindowState {
  return minute.remaining < day.remaining ? minute : day;
}
