// Per-key fixed windows (calendar minute and calendar day, UTC) on one DynamoDB item per key and
// UTC day, without transactions. The item holds the day's count, the current minute with its count
// and refusals, and any ban. One conditional UpdateItem admits a request: it increments both counts
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
// Exactness does not depend on replies arriving on time: the counting writes go through a client
// that never retries (LIMITER_CLIENT), so a write whose reply was late is never applied twice. Such
// a write may use up a slot without serving; it can never over-admit.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BAN, type Limits } from '../contract/plans';
import type { RateLimitCode } from '../contract/operations';
import { TABLES } from '../contract/tables';
import { conditionalWrite, ON_EMBEDDED_SERVER, type ConditionFailureItems, type Item } from './conditional';
import type { DynamoOptions } from './dynamo';
import { numberOf } from './numbers';
import { logger } from '../commons/logger';
import { MinutePassedError } from '../core/limit-errors';
import {
  daysCovering,
  expiresAt,
  firstToRunOut,
  limiterKey,
  MINUTE_SECONDS,
  unixSeconds,
  windowAt,
  type Window,
  type WindowState,
} from '../core/windows';

export type { WindowState } from '../core/windows';
export { MinutePassedError } from '../core/limit-errors';

/** The limiter refuses with exactly the contract's rate-limit codes. */
export type RejectionReason = RateLimitCode;

/**
 * A refusal's `headers.resetAt` is when the refusing window (or the ban) ends; the Retry-After
 * and the final Reset are worked out when the answer is made (see `refusalAt`).
 */
export type Admission =
  | { admitted: true; headers: WindowState }
  | {
      admitted: false;
      reason: RejectionReason;
      headers: WindowState;
      /** This refusal imposed the ban it reports (the ones after it find the ban in force). */
      banStarted?: true;
    };

/**
 * The limiter's DynamoDB client settings: one attempt per call. An SDK retry after a timeout would
 * apply a counting write a second time whenever the first attempt was applied and only its reply
 * was late.
 */
export const LIMITER_CLIENT: Pick<DynamoOptions, 'maxAttempts'> = { maxAttempts: 1 };

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
}

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

/** What a failed condition told the limiter: the item, or that there is none. */
type Found = LimiterState | 'absent';

/** How a request is to be admitted: into the stored minute, or as the first of a new minute. */
type Plan =
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
  | { kind: 'too late' };

/**
 * Every failed attempt means another request changed the item in between, and each change moves it
 * closer to a decision (the minute started, a count reached its limit, a ban); this bounds the loop
 * anyway.
 */
const MAX_WRITES = 4;

const NAMES = {
  '#day': 'day',
  '#minute': 'minute',
  '#inMinute': 'inMinute',
  '#refused': 'refused',
  '#bannedUntil': 'bannedUntil',
  '#bannedFrom': 'bannedFrom',
  '#expiresAt': TABLES.rateLimits.ttlAttribute,
} as const;
type Name = keyof typeof NAMES;

/**
 * A ban takes effect from the second after it is written: requests already in flight in that
 * second, which the windows admitted before the client could see any refusal, are still served.
 */
const NOT_BANNED = '(attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now OR #bannedFrom > :now)';
/** A ban in force is never extended or moved. */
const NO_BAN_IN_FORCE = '(attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now)';
const DAY_BELOW_LIMIT = '(attribute_not_exists(#day) OR #day < :perDay)';
/** A later minute is never moved back, whatever a lagging clock says. */
const MINUTE_BEFORE = '(attribute_not_exists(#minute) OR #minute < :minute)';

export class RateLimiter {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    /** The limiter's clock, epoch ms; answers read it again when they are made. */
    readonly now: () => number = Date.now,
    private readonly conditionFailures: ConditionFailureItems = ON_EMBEDDED_SERVER,
  ) {}

  async admit(keyId: string, limits: Limits): Promise<Admission> {
    const now = unixSeconds(this.now());
    const day = windowAt('day', now);
    const key = limiterKey(keyId, day);
    const ourMinute = windowAt('minute', now).start;
    // Most requests fall in a minute already started: try that first, learn otherwise from the answer.
    let plan: Plan = { kind: 'admit', minute: ourMinute, newMinute: false };
    for (let write = 0; write < MAX_WRITES; write++) {
      if (plan.kind === 'banned') return banned(plan.until, limits);
      if (plan.kind === 'refuse') return this.refuse(keyId, day, plan, ourMinute, limits, now);
      const outcome = await this.take(key, plan, limits, now, day);
      if (outcome.applied) {
        const stored = stateOf(outcome.output.Attributes ?? {});
        const minute = {
          limit: limits.perMinute,
          remaining: Math.max(0, limits.perMinute - stored.inMinute),
          resetAt: plan.minute + MINUTE_SECONDS,
        };
        const today = {
          limit: limits.perDay,
          remaining: Math.max(0, limits.perDay - stored.day),
          resetAt: day.resetAt,
        };
        return { admitted: true, headers: firstToRunOut(minute, today) };
      }
      const found = await this.found(key, outcome.found);
      plan = planFor(found, ourMinute, limits, now, windowAt('minute', unixSeconds(this.now())).start);
      if (plan.kind === 'too late') throw new MinutePassedError(key);
    }
    throw new Error(`Rate limit item ${key} kept changing`);
  }

  /** The limiter item of a key for the UTC day containing `nowMs`, read consistently. */
  async read(keyId: string, nowMs: number = this.now()): Promise<LimiterState | undefined> {
    const found = await this.readItem(limiterKey(keyId, windowAt('day', unixSeconds(nowMs))));
    return found === 'absent' ? undefined : found;
  }

  /**
   * The one admitting write. In the stored minute it increments both counts; the first request of
   * a new minute sets the minute with a count of 1 and no refusals.
   */
  private take(key: string, plan: { minute: number; newMinute: boolean }, limits: Limits, now: number, day: Window) {
    const values = { ':one': 1, ':minute': plan.minute, ':perDay': limits.perDay, ':now': now };
    return conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: key },
          ...(plan.newMinute
            ? {
                UpdateExpression:
                  'SET #day = if_not_exists(#day, :zero) + :one, #minute = :minute, #inMinute = :one, #refused = :zero, #expiresAt = :expiresAt',
                ConditionExpression: `${MINUTE_BEFORE} AND ${DAY_BELOW_LIMIT} AND ${NOT_BANNED}`,
                ExpressionAttributeNames: names(
                  '#day',
                  '#minute',
                  '#inMinute',
                  '#refused',
                  '#expiresAt',
                  '#bannedUntil',
                  '#bannedFrom',
                ),
                ExpressionAttributeValues: { ...values, ':zero': 0, ':expiresAt': expiresAt(day.resetAt) },
              }
            : {
                UpdateExpression: 'SET #day = #day + :one, #inMinute = #inMinute + :one',
                ConditionExpression: `#minute = :minute AND #inMinute < :perMinute AND #day < :perDay AND ${NOT_BANNED}`,
                ExpressionAttributeNames: names('#day', '#minute', '#inMinute', '#bannedUntil', '#bannedFrom'),
                ExpressionAttributeValues: { ...values, ':perMinute': limits.perMinute },
              }),
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
  }

  /**
   * Records the refusal in the request's own minute, and bans the key when the recorded refusals
   * pass the threshold. Only refusals by a window count: requests refused for the ban itself do
   * not, so a ban ends on time however hard the key keeps knocking. From here on the answer is a
   * 429 whatever DynamoDB does (see the top of this file): a failed recording or ban write makes a
   * refusal uncounted, never a 503.
   */
  private async refuse(
    keyId: string,
    day: Window,
    plan: Extract<Plan, { kind: 'refuse' }>,
    ourMinute: number,
    limits: Limits,
    now: number,
  ): Promise<Admission> {
    const { reason } = plan;
    const refusal: Admission = {
      admitted: false,
      reason,
      headers: {
        limit: reason === 'RATE_LIMITED' ? limits.perMinute : limits.perDay,
        remaining: 0,
        resetAt: reason === 'RATE_LIMITED' ? plan.minute + MINUTE_SECONDS : day.resetAt,
      },
    };
    // A later stored minute is not this request's: it is refused there, and counted nowhere.
    if (plan.minute !== ourMinute) return refusal;
    const key = limiterKey(keyId, day);
    const recorded = await unlessFailed('refusal not counted', () => this.recordRefusal(key, plan, day));
    if (recorded === 'minute moved on') return refusal;
    // Without the record's reply, the refusals already recorded, each sent as a 429, plus this one:
    // no more than the true count, and a key whose records keep losing their replies is banned too.
    const refused = recorded ?? plan.refusedBefore + 1;
    if (refused <= limits.perMinute * BAN.rejectedPerMinuteFactor) return refusal;
    const ban = await unlessFailed('ban not written', () => this.ban(keyId, now));
    if (ban === undefined) return refusal;
    return { ...banned(ban.until, limits), ...(ban.started ? { banStarted: true as const } : {}) };
  }

  /**
   * Refusals recorded in the minute, this one included, unless the stored minute is no longer the
   * refusal's (it moved on meanwhile: the refusal belongs to no minute still counting). Sent once,
   * like every limiter write: a retried ADD would count a refusal twice.
   */
  private async recordRefusal(
    key: string,
    plan: { minute: number; newMinute: boolean },
    day: Window,
  ): Promise<number | 'minute moved on'> {
    const inMinute = () =>
      conditionalWrite(() =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: key },
            UpdateExpression: 'ADD #refused :one',
            ConditionExpression: '#minute = :minute',
            ExpressionAttributeNames: names('#refused', '#minute'),
            ExpressionAttributeValues: { ':one': 1, ':minute': plan.minute },
            ReturnValues: 'UPDATED_NEW',
          }),
        ),
      );
    let outcome = plan.newMinute
      ? await conditionalWrite(() =>
          this.doc.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { pk: key },
              UpdateExpression: 'SET #minute = :minute, #inMinute = :zero, #refused = :one, #expiresAt = :expiresAt',
              ConditionExpression: MINUTE_BEFORE,
              ExpressionAttributeNames: names('#minute', '#inMinute', '#refused', '#expiresAt'),
              ExpressionAttributeValues: {
                ':one': 1,
                ':zero': 0,
                ':minute': plan.minute,
                ':expiresAt': expiresAt(day.resetAt),
              },
              ReturnValues: 'UPDATED_NEW',
            }),
          ),
        )
      : await inMinute();
    // Another request started the minute first: count in it.
    if (!outcome.applied && plan.newMinute) outcome = await inMinute();
    return outcome.applied ? (numberOf(outcome.output.Attributes?.refused) ?? 1) : 'minute moved on';
  }

  /**
   * Bans the key, unless a ban is already in force; returns the end of the ban that holds, so
   * requests crossing the threshold together all report the one stored end. A ban that runs past
   * midnight is also written on the next day's item, by the request whose ban took. `started`
   * when this request's ban took.
   */
  private async ban(keyId: string, now: number): Promise<{ until: number; started: boolean }> {
    const until = now + BAN.durationSeconds;
    const [today, ...later] = daysCovering(now, until);
    if (!today) throw new Error('A ban covers at least the day it starts');
    const outcome = await this.writeBan(keyId, today, now, until);
    if (!outcome.applied) {
      const found = await this.found(limiterKey(keyId, today), outcome.found);
      return {
        until: found === 'absent' || found.bannedUntil === undefined ? until : found.bannedUntil,
        started: false,
      };
    }
    // Today's ban took: the later days' entries only extend it past midnight.
    await Promise.all(
      later.map((day) => unlessFailed('ban not extended past midnight', () => this.writeBan(keyId, day, now, until))),
    );
    return { until, started: true };
  }

  private writeBan(keyId: string, day: Window, now: number, until: number) {
    return conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: limiterKey(keyId, day) },
          UpdateExpression: 'SET #bannedFrom = :from, #bannedUntil = :until, #expiresAt = :expiresAt',
          ConditionExpression: NO_BAN_IN_FORCE,
          ExpressionAttributeNames: names('#bannedFrom', '#bannedUntil', '#expiresAt'),
          ExpressionAttributeValues: {
            ':from': now + 1,
            ':until': until,
            ':now': now,
            ':expiresAt': expiresAt(Math.max(day.resetAt, until)),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
  }

  /**
   * The item a failed condition met. DynamoDB returns it (none: there is no item); the embedded
   * server never does, so there it is read, consistently, on this path only.
   */
  private async found(key: string, item: Item | undefined): Promise<Found> {
    if (item) return stateOf(item);
    return this.conditionFailures.returnedByServer ? 'absent' : this.readItem(key);
  }

  private async readItem(key: string): Promise<Found> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }),
    );
    return Item ? stateOf(Item) : 'absent';
  }
}

/**
 * What to do given the stored item. The reason is the window that really refused: the day only
 * when its count has reached the day limit, the minute only when the current minute is full.
 */
function planFor(found: Found, ourMinute: number, limits: Limits, now: number, minuteNow: number): Plan {
  if (found === 'absent') return { kind: 'admit', minute: ourMinute, newMinute: true };
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

/**
 * Runs a write whose failure must not change the answer (the 429 is given either way): any error,
 * a timeout or a lost reply included, gives undefined. Whether the write was applied is unknown;
 * the refusal may or may not have been counted.
 */
async function unlessFailed<T>(what: string, write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (error) {
    logger.warn(`rate limiter: ${what}`, {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
    return undefined;
  }
}

function isBanned(state: LimiterState, now: number): boolean {
  return state.bannedUntil !== undefined && state.bannedUntil > now && (state.bannedFrom ?? 0) <= now;
}

/** The ban headers carry the per-minute limit, the bound whose abuse caused the ban. */
function banned(until: number, limits: Limits): Admission {
  return {
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    headers: { limit: limits.perMinute, remaining: 0, resetAt: until },
  };
}

function stateOf(item: Item): LimiterState {
  return {
    day: numberOf(item.day) ?? 0,
    minute: numberOf(item.minute),
    inMinute: numberOf(item.inMinute) ?? 0,
    refused: numberOf(item.refused) ?? 0,
    bannedFrom: numberOf(item.bannedFrom),
    bannedUntil: numberOf(item.bannedUntil),
  };
}

/** DynamoDB expressions may only name the attributes they use, so each takes its own subset. */
function names(...keys: Name[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, NAMES[k]]));
}
