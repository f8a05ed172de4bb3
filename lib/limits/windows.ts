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

/** Partition key of a window's counter item: one item per key and window. */
export function counterKey(keyId: string, window: Pick<Window, 'kind' | 'start'>): string {
  return `${keyId}#${window.kind === 'minute' ? 'm' : 'd'}#${window.start}`;
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
