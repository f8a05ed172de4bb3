// A key's use of its windows as an operator reads it (`keys usage`), from the stored limiter item.
import type { Limits } from '../../contract/plans';
import type { LimiterState } from './rules';
import { unixSeconds, windowAt } from './windows';

/** A key's use of its windows at one moment, as an operator reads it (not a request's headers). */
export interface KeyUsage {
  minute: { used: number; remaining: number; resetAt: number; refused: number };
  day: { used: number; remaining: number; resetAt: number };
  /** A ban stored on today's item that has not ended yet (it may start in the next second). */
  bannedUntil?: number;
}

/**
 * What the limiter item says of a key at `nowMs`: the minute's counts only while that minute is the
 * current one, the day's as stored; nothing stored means nothing used.
 */
export function usageAt(state: LimiterState | undefined, limits: Limits, nowMs: number): KeyUsage {
  const now = unixSeconds(nowMs);
  const minute = windowAt('minute', now);
  const current = state?.minute === minute.start;
  const used = { minute: current ? (state?.inMinute ?? 0) : 0, day: state?.day ?? 0 };
  const usage: KeyUsage = {
    minute: {
      used: used.minute,
      remaining: Math.max(0, limits.perMinute - used.minute),
      resetAt: minute.resetAt,
      refused: current ? (state?.refused ?? 0) : 0,
    },
    day: { used: used.day, remaining: Math.max(0, limits.perDay - used.day), resetAt: windowAt('day', now).resetAt },
  };
  if (state?.bannedUntil !== undefined && state.bannedUntil > now) usage.bannedUntil = state.bannedUntil;
  return usage;
}
