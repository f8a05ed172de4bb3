// The limiter's port (lib/core/limiter/store.ts) in memory, with the conditions of the DynamoDB
// store's expressions, down to DynamoDB's reading of a missing attribute (a comparison with it is
// false). test/support/limiter-store-contract.ts runs the same cases against both stores. Faults
// (a reply lost after the write, a write never made, a reply held until a gate opens) stand in for
// test/support/limiter-clients.ts, without a server or real waiting.
import type { Deadline } from '../../lib/commons/deadline';
import type { Limits } from '../../lib/contract/plans';
import type { Found, LimiterState } from '../../lib/core/limiter/rules';
import type { LimiterItem, LimiterStore, NotApplied } from '../../lib/core/limiter/store';
import { limiterKey } from '../../lib/core/limiter/windows';

/** One call as the algorithm made it, before any fault, with the deadline it carried. */
export type StoreCall = (
  | { operation: 'take'; item: LimiterItem; write: { minute: number; newMinute: boolean } }
  | { operation: 'recordRefusal'; item: LimiterItem; write: { minute: number; newMinute: boolean } }
  | { operation: 'writeBan'; item: LimiterItem; write: { from: number; until: number } }
  | { operation: 'giveBack'; item: LimiterItem; write: { minute: number } }
  | { operation: 'markRevoked'; item: LimiterItem; write: { at: number } }
  | { operation: 'read'; item: LimiterItem }
) & { deadline?: Deadline | undefined };

/** What a fault does to the call it picked. */
export type StoreFault =
  /** Applied; the reply is lost: the caller sees a timeout. */
  | { kind: 'lost-after-write' }
  /** Never applied: the caller sees a timeout. */
  | { kind: 'failed-before-write' }
  /** Applied (or refused) at once; the reply arrives once `until` settles. */
  | { kind: 'late'; until: Promise<unknown> };

export interface InMemoryLimiterOptions {
  /**
   * 'returned' (DynamoDB): a failed condition carries the item as the condition met it;
   * 'read after' (the embedded server): the item as it stands when the reply arrives.
   */
  conditionFailures?: 'returned' | 'read after';
  /** Picks calls by number (from 1) for a fault. */
  fault?: (n: number, call: StoreCall) => StoreFault | undefined;
}

/** The stored attributes; an absent one is absent, not 0, as in DynamoDB. */
interface Stored {
  day?: number;
  minute?: number;
  inMinute?: number;
  refused?: number;
  bannedFrom?: number;
  bannedUntil?: number;
  revokedAt?: number;
}

/** DynamoDB's `a < b`, false when `a` is absent. */
const below = (a: number | undefined, b: number) => a !== undefined && a < b;

export class InMemoryLimiterStore implements LimiterStore {
  private readonly items = new Map<string, Stored>();
  /** Every call made, in order. */
  readonly calls: StoreCall[] = [];

  constructor(private readonly options: InMemoryLimiterOptions = {}) {}

  take(
    item: LimiterItem,
    write: { minute: number; newMinute: boolean; now: number; limits: Limits },
    deadline?: Deadline,
  ) {
    const { minute, newMinute, now, limits } = write;
    return this.call({ operation: 'take', item, write: { minute, newMinute }, deadline }, (s) => {
      const notBanned = s?.bannedUntil === undefined || s.bannedUntil <= now || (s.bannedFrom ?? -Infinity) > now;
      if (s?.revokedAt !== undefined) return undefined;
      if (newMinute) {
        const minuteBefore = s?.minute === undefined || s.minute < minute;
        const dayBelow = s?.day === undefined || s.day < limits.perDay;
        if (!(minuteBefore && dayBelow && notBanned)) return undefined;
        const next = { ...s, day: (s?.day ?? 0) + 1, minute, inMinute: 1, refused: 0 };
        return { next, reply: { applied: true as const, day: next.day, inMinute: next.inMinute } };
      }
      if (s?.minute !== minute || !below(s.inMinute, limits.perMinute) || !below(s.day, limits.perDay) || !notBanned) {
        return undefined;
      }
      const next = { ...s, day: (s.day ?? 0) + 1, inMinute: (s.inMinute ?? 0) + 1 };
      return { next, reply: { applied: true as const, day: next.day, inMinute: next.inMinute } };
    });
  }

  async recordRefusal(item: LimiterItem, write: { minute: number; newMinute: boolean }, deadline?: Deadline) {
    const { minute, newMinute } = write;
    const outcome = await this.call({ operation: 'recordRefusal', item, write, deadline }, (s) => {
      if (newMinute) {
        if (s?.minute !== undefined && s.minute >= minute) return undefined;
        return { next: { ...s, minute, inMinute: 0, refused: 1 }, reply: { applied: true as const, refused: 1 } };
      }
      if (s?.minute !== minute) return undefined;
      const refused = (s.refused ?? 0) + 1;
      return { next: { ...s, refused }, reply: { applied: true as const, refused } };
    });
    return outcome.applied ? outcome.refused : undefined;
  }

  writeBan(item: LimiterItem, ban: { from: number; until: number; now: number }, deadline?: Deadline) {
    const { from, until } = ban;
    return this.call({ operation: 'writeBan', item, write: { from, until }, deadline }, (s) => {
      if (s?.bannedUntil !== undefined && s.bannedUntil > ban.now) return undefined;
      return { next: { ...s, bannedFrom: from, bannedUntil: until }, reply: { applied: true as const } };
    });
  }

  async giveBack(item: LimiterItem, write: { minute: number }, deadline?: Deadline) {
    const outcome = await this.call({ operation: 'giveBack', item, write, deadline }, (s) => {
      if (s?.minute === write.minute && below(0, s.inMinute ?? 0) && below(0, s.day ?? 0)) {
        return { next: { ...s, day: (s.day ?? 0) - 1, inMinute: (s.inMinute ?? 0) - 1 }, reply: { applied: true } };
      }
      // The minute moved on: only the day's count is given back.
      if (s?.minute !== undefined && s.minute !== write.minute && below(0, s.day ?? 0)) {
        return { next: { ...s, day: (s.day ?? 0) - 1 }, reply: { applied: true } };
      }
      return undefined;
    });
    return outcome.applied;
  }

  async markRevoked(item: LimiterItem, mark: { at: number }): Promise<void> {
    await this.call({ operation: 'markRevoked', item, write: mark }, (s) => ({
      next: { ...s, revokedAt: s?.revokedAt ?? mark.at },
      reply: {},
    }));
  }

  async read(item: LimiterItem, deadline?: Deadline): Promise<Found> {
    const outcome = await this.call({ operation: 'read', item, deadline }, (s) => ({
      next: s,
      reply: { found: found(s) },
    }));
    return outcome.found;
  }

  /** The stored state of an item, past any fault (for assertions). */
  peek(item: LimiterItem): LimiterState | undefined {
    const s = this.items.get(limiterKey(item.keyId, item.day));
    return s && stateOf(s);
  }

  /**
   * One atomic check-and-set: `apply` sees the stored attributes and returns the new ones with the
   * reply, or undefined when its condition fails. A turn of the event loop comes first, so that
   * parallel requests interleave between their writes as they do over a network.
   */
  private async call<R extends object>(
    call: StoreCall,
    apply: (stored: Stored | undefined) => { next: Stored | undefined; reply: R } | undefined,
  ): Promise<R | NotApplied> {
    this.calls.push(call);
    const fault = this.options.fault?.(this.calls.length, call);
    await new Promise((resolve) => setImmediate(resolve));
    if (fault?.kind === 'failed-before-write') throw timeoutError();
    const key = limiterKey(call.item.keyId, call.item.day);
    const before = this.items.get(key);
    const applied = apply(before);
    if (applied?.next) this.items.set(key, applied.next);
    if (fault?.kind === 'late') await fault.until;
    if (fault?.kind === 'lost-after-write') throw timeoutError();
    if (applied) return applied.reply;
    const seen = this.options.conditionFailures === 'read after' ? this.items.get(key) : before;
    return { applied: false, found: found(seen) };
  }
}

function found(stored: Stored | undefined): Found {
  return stored ? stateOf(stored) : 'absent';
}

function stateOf(s: Stored): LimiterState {
  return {
    day: s.day ?? 0,
    minute: s.minute,
    inMinute: s.inMinute ?? 0,
    refused: s.refused ?? 0,
    bannedFrom: s.bannedFrom,
    bannedUntil: s.bannedUntil,
    revoked: s.revokedAt !== undefined,
  };
}

/** As the SDK reports a request that outlived its timeout. */
function timeoutError(): Error {
  return Object.assign(new Error('Request timed out'), { name: 'TimeoutError' });
}
