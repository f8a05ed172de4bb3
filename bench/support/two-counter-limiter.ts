// The limiter as it was before one item per key and day: two counter items per key (the minute and
// the day), admitted by parallel conditional ADDs with give-backs. Kept only so the bench can print
// the DynamoDB calls and write units per request before and after in one run; nothing else uses it.
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { BAN, type Limits } from '../../lib/limits/plans';
import { TABLES } from '../../lib/aws/tables';
import { conditionalWrite } from '../../lib/aws/conditional';
import { numberOf } from '../../lib/aws/numbers';
import {
  daysCovering,
  expiresAt,
  firstToRunOut,
  secondsUntil,
  unixSeconds,
  windowAt,
  type Window,
  type WindowKind,
  type WindowState,
} from '../../lib/limits/windows';

type RejectionReason = 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'KEY_TEMPORARILY_BANNED';

type Admission =
  | { admitted: true; headers: WindowState }
  | { admitted: false; reason: RejectionReason; retryAfterSeconds: number; headers: WindowState };

/** One window's counter for one request: its item and the bound its condition holds. */
interface Counter {
  window: Window;
  key: string;
  limit: number;
}

/** What decides why a day counter refused: the server returns it (DynamoDB) or a read finds it. */
interface CounterItem {
  bannedFrom: number | undefined;
  bannedUntil: number | undefined;
}

type Take = { taken: true; count: number } | { taken: false; found: CounterItem | undefined };

const NAMES = {
  '#count': 'count',
  '#rejected': 'rejected',
  '#bannedUntil': 'bannedUntil',
  '#bannedFrom': 'bannedFrom',
  '#expiresAt': TABLES.rateLimits.ttlAttribute,
};
const COUNT_BELOW_LIMIT = '(attribute_not_exists(#count) OR #count < :limit)';
/**
 * A ban takes effect from the second after it is written: requests already in flight in that
 * second, which the windows admitted before the client could see any refusal, are still served.
 */
const NOT_BANNED = '(attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now OR #bannedFrom > :now)';
/** A ban in force is never extended or moved. */
const NO_BAN_IN_FORCE = '(attribute_not_exists(#bannedUntil) OR #bannedUntil <= :now)';

/** The counter item of one window: `<keyId>#m#<start>` or `<keyId>#d#<start>`. */
function counterKey(keyId: string, window: Pick<Window, 'kind' | 'start'>): string {
  return `${keyId}#${window.kind === 'minute' ? 'm' : 'd'}#${window.start}`;
}

/**
 * Per-key fixed windows (calendar minute and calendar day, UTC) on DynamoDB counters, without
 * transactions: each window is one conditional UpdateItem that increments only below its limit,
 * so no interleaving can serve more than a window's limit. Both run in parallel; when one refuses,
 * the other's increment is taken back, so a refused request uses up neither window.
 *
 * The ban lives on the day counter, which every request writes anyway: the day condition also
 * requires "not banned", so the happy path needs no extra read.
 */
export class TwoCounterLimiter {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The clock the rate-limit middleware reads when it makes an answer. */
  now(): number {
    return this.clock();
  }

  async admit(keyId: string, limits: Limits): Promise<Admission> {
    const nowMs = this.clock();
    const now = unixSeconds(nowMs);
    const minute = counter(keyId, 'minute', now, limits.perMinute);
    const day = counter(keyId, 'day', now, limits.perDay);
    const [m, d] = await this.takeBoth(minute, day, now);
    if (m.taken && d.taken) {
      return { admitted: true, headers: firstToRunOut(stateAfter(minute, m.count), stateAfter(day, d.count)) };
    }

    const [dayItem] = await Promise.all([
      d.taken ? undefined : (d.found ?? this.read(day.key)),
      m.taken ? this.giveBack(minute) : undefined,
      d.taken ? this.giveBack(day) : undefined,
    ]);
    if (dayItem && isBanned(dayItem, now)) return banned(dayItem.bannedUntil as number, limits, nowMs);

    // Only refusals by a window count towards a ban: requests refused for the ban itself do not,
    // so a ban ends on time however hard the key keeps knocking.
    const rejected = await this.countRejection(minute);
    if (rejected > limits.perMinute * BAN.rejectedPerMinuteFactor) {
      const until = now + BAN.durationSeconds;
      await this.ban(keyId, now, until);
      return banned(until, limits, nowMs);
    }
    const refusing = d.taken ? minute : day;
    return {
      admitted: false,
      reason: refusing === minute ? 'RATE_LIMITED' : 'QUOTA_EXCEEDED',
      retryAfterSeconds: secondsUntil(refusing.window.resetAt, nowMs),
      headers: { limit: refusing.limit, remaining: 0, resetAt: refusing.window.resetAt },
    };
  }

  /**
   * Both windows in one round trip. If either call fails outright, what the other took is given
   * back before the error goes on, so a request that is not served never uses up a window.
   */
  private async takeBoth(minute: Counter, day: Counter, now: number): Promise<[Take, Take]> {
    const [m, d] = await Promise.allSettled([this.take(minute, now, false), this.take(day, now, true)]);
    if (m.status === 'fulfilled' && d.status === 'fulfilled') return [m.value, d.value];
    const took = (r: PromiseSettledResult<Take>) => r.status === 'fulfilled' && r.value.taken;
    await Promise.allSettled([took(m) && this.giveBack(minute), took(d) && this.giveBack(day)]);
    throw [m, d].find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason;
  }

  private async take(c: Counter, now: number, checkBan: boolean): Promise<Take> {
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: c.key },
          UpdateExpression: 'ADD #count :one SET #expiresAt = :expiresAt',
          ConditionExpression: checkBan ? `${COUNT_BELOW_LIMIT} AND ${NOT_BANNED}` : COUNT_BELOW_LIMIT,
          ExpressionAttributeNames: pick(
            NAMES,
            checkBan ? ['#count', '#expiresAt', '#bannedUntil', '#bannedFrom'] : ['#count', '#expiresAt'],
          ),
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': c.limit,
            ':expiresAt': expiresAt(c.window.resetAt),
            ...(checkBan ? { ':now': now } : {}),
          },
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (!outcome.applied) return { taken: false, found: outcome.found ? counterItem(outcome.found) : undefined };
    const count = numberOf(outcome.output.Attributes?.count);
    if (count === undefined) throw new Error(`Rate limit counter ${c.key} returned no count`);
    return { taken: true, count };
  }

  /** Unconditional: the increment being taken back was made by this request. */
  private async giveBack(c: Counter): Promise<void> {
    await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: c.key },
        UpdateExpression: 'ADD #count :minusOne SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: pick(NAMES, ['#count', '#expiresAt']),
        ExpressionAttributeValues: { ':minusOne': -1, ':expiresAt': expiresAt(c.window.resetAt) },
      }),
    );
  }

  /** The embedded server returns no item with a failed condition; then it is read, consistently. */
  private async read(key: string): Promise<CounterItem | undefined> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }),
    );
    return Item ? counterItem(Item) : undefined;
  }

  /** Refusals this minute, this one included. */
  private async countRejection(minute: Counter): Promise<number> {
    const { Attributes } = await this.doc.send(
      new UpdateCommand({
        TableName: this.table,
        Key: { pk: minute.key },
        UpdateExpression: 'ADD #rejected :one SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: pick(NAMES, ['#rejected', '#expiresAt']),
        ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt(minute.window.resetAt) },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return numberOf(Attributes?.rejected) ?? 1;
  }

  /**
   * Written on every day counter the ban overlaps, so a ban that crosses midnight still holds on
   * the next day's counter. A ban in force is never extended: concurrent refusals that all cross
   * the threshold leave the first one's end.
   */
  private async ban(keyId: string, now: number, until: number): Promise<void> {
    await Promise.all(
      daysCovering(now, until).map(async (window) => {
        await conditionalWrite(() =>
          this.doc.send(
            new UpdateCommand({
              TableName: this.table,
              Key: { pk: counterKey(keyId, window) },
              UpdateExpression: 'SET #bannedFrom = :from, #bannedUntil = :until, #expiresAt = :expiresAt',
              ConditionExpression: NO_BAN_IN_FORCE,
              ExpressionAttributeNames: pick(NAMES, ['#bannedFrom', '#bannedUntil', '#expiresAt']),
              ExpressionAttributeValues: {
                ':from': now + 1,
                ':until': until,
                ':now': now,
                ':expiresAt': expiresAt(Math.max(window.resetAt, until)),
              },
            }),
          ),
        );
      }),
    );
  }
}

function counter(keyId: string, kind: WindowKind, now: number, limit: number): Counter {
  const window = windowAt(kind, now);
  return { window, key: counterKey(keyId, window), limit };
}

function stateAfter(c: Counter, count: number): WindowState {
  return { limit: c.limit, remaining: Math.max(0, c.limit - count), resetAt: c.window.resetAt };
}

/** The ban headers carry the per-minute limit, the bound whose abuse caused the ban. */
function banned(until: number, limits: Limits, nowMs: number): Admission {
  return {
    admitted: false,
    reason: 'KEY_TEMPORARILY_BANNED',
    retryAfterSeconds: secondsUntil(until, nowMs),
    headers: { limit: limits.perMinute, remaining: 0, resetAt: until },
  };
}

/**
 * DynamoDB expressions may only name the attributes they use, so each takes its own subset.
 */
function pick(names: typeof NAMES, keys: (keyof typeof NAMES)[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, names[k]]));
}

function isBanned(item: CounterItem, now: number): boolean {
  return item.bannedUntil !== undefined && item.bannedUntil > now && (item.bannedFrom ?? 0) <= now;
}

/**
 * An item from the document client (numbers wrapped, see lib/aws/dynamo.ts) or from a failed
 * condition, which lib-dynamodb leaves in attribute-value form (`{ N: '5' }`).
 */
function counterItem(item: Record<string, unknown>): CounterItem {
  return { bannedFrom: numberOf(item.bannedFrom), bannedUntil: numberOf(item.bannedUntil) };
}
