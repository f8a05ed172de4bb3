// The rate limiter on DynamoDB: the admit algorithm of lib/core/limiter/limiter.ts (whose top comment says
// what it guarantees: exact under late and lost replies, bans only from refusals sent in their own
// minute) over DynamoLimiterStore, which holds the port's conditional writes as UpdateItem
// expressions on one item per key and UTC day, without transactions.
//
// Exactness does not depend on replies arriving on time: the counting writes go through a client
// that never retries (LIMITER_CLIENT), so a write whose reply was late is never applied twice. Such
// a write may use up a slot without serving; it can never over-admit. Each write is sent within its
// request's deadline and cut at its own attempt timeout (lib/stores/call-deadlines.ts).
//
// DynamoDB returns the item with a failed condition (ReturnValuesOnConditionCheckFailure: ALL_OLD);
// the embedded server of the local stack never does, so there the store reads the item,
// consistently, on the failing path only (`conditionFailures`).
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../commons/deadline';
import type { Limits } from '../contract/plans';
import { TABLES } from '../contract/tables';
import { readOptions, sendWrite, type AttemptTimer, type SendOptions } from './call-deadlines';
import { conditionalWrite, ON_EMBEDDED_SERVER, type ConditionFailureItems, type Item } from './conditional';
import type { DynamoOptions } from './dynamo';
import { numberOf } from './numbers';
import { logger } from '../commons/logger';
import { timedLimiter } from '../core/limiter/limiter';
import type { Admission, AdmittedSlot, Found, LimiterState } from '../core/limiter/rules';
import type { LimiterItem, LimiterStore, NotApplied } from '../core/limiter/store';
import type { TimeBudget } from '../core/limiter/budget';
import { expiresAt, limiterKey, unixSeconds, windowAt } from '../core/limiter/windows';

export type { WindowState } from '../core/limiter/windows';
export type { Admission, AdmittedSlot, LimiterState, RejectionReason } from '../core/limiter/rules';
export { usageAt, type KeyUsage } from '../core/limiter/usage';
export { MinutePassedError, NoTimeToServeError } from '../core/limiter/limit-errors';
export type { TimeBudget } from '../core/limiter/budget';

/**
 * The limiter's DynamoDB client settings: one attempt per call. An SDK retry after a timeout would
 * apply a counting write a second time whenever the first attempt was applied and only its reply
 * was late.
 */
export const LIMITER_CLIENT: Pick<DynamoOptions, 'maxAttempts'> = { maxAttempts: 1 };

export class RateLimiter {
  private readonly limiter: ReturnType<typeof timedLimiter>;

  constructor(
    doc: DynamoDBDocumentClient,
    table: string,
    /** The limiter's clock, epoch ms; answers read it again when they are made. */
    readonly now: () => number = Date.now,
    conditionFailures: ConditionFailureItems = ON_EMBEDDED_SERVER,
    /** The monotonic clock the store calls are timed by (the time budget); a virtual one in tests. */
    elapsedMs: () => number = () => performance.now(),
    /** Each write's own timeout and timers (the composition root's); the client's own timeout alone when absent. */
    attemptTimer?: AttemptTimer,
  ) {
    this.limiter = timedLimiter(
      new DynamoLimiterStore(doc, table, conditionFailures, attemptTimer),
      { now, elapsedMs },
      warn,
    );
  }

  /** With `budget`, a request that could no longer be served in time is not counted (NoTimeToServeError). */
  admit(keyId: string, limits: Limits, budget?: TimeBudget): Promise<Admission> {
    return this.limiter.admit(keyId, limits, budget);
  }

  /** Undoes an admission whose request was refused after all, for a reason of its own (no listing room). */
  giveBack(keyId: string, slot: AdmittedSlot, deadline?: Deadline): Promise<void> {
    return this.limiter.giveBack(keyId, slot, deadline);
  }

  /**
   * Marks the key revoked on the limiter items its cached authorizations (`cacheTtlSeconds`) can
   * still reach from `nowMs`: its next request is refused 401 by its own admitting write.
   */
  markRevoked(keyId: string, nowMs: number, cacheTtlSeconds: number): Promise<void> {
    return this.limiter.markRevoked(keyId, nowMs, cacheTtlSeconds);
  }

  /** The limiter item of a key for the UTC day containing `nowMs`, read consistently. */
  async read(keyId: string, nowMs: number = this.now()): Promise<LimiterState | undefined> {
    const found = await this.limiter.store.read({ keyId, day: windowAt('day', unixSeconds(nowMs)) });
    return found === 'absent' ? undefined : found;
  }
}

/** A best-effort write failed: the refusal is answered 429 all the same. Never logs the key. */
function warn(what: string, error: unknown): void {
  logger.warn(`rate limiter: ${what}`, {
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
}

const NAMES = {
  '#day': 'day',
  '#minute': 'minute',
  '#inMinute': 'inMinute',
  '#refused': 'refused',
  '#bannedUntil': 'bannedUntil',
  '#bannedFrom': 'bannedFrom',
  '#revokedAt': 'revokedAt',
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
/** `keys revoke` has not marked the item (markRevoked). */
const NOT_REVOKED = 'attribute_not_exists(#revokedAt)';
const DAY_BELOW_LIMIT = '(attribute_not_exists(#day) OR #day < :perDay)';
/** A later minute is never moved back, whatever a lagging clock says. */
const MINUTE_BEFORE = '(attribute_not_exists(#minute) OR #minute < :minute)';

/**
 * The port's writes as UpdateItem expressions, each sent once. Items expire by TTL a minute after
 * their day ends (or their ban, if later).
 */
export class DynamoLimiterStore implements LimiterStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly conditionFailures: ConditionFailureItems = ON_EMBEDDED_SERVER,
    private readonly attemptTimer?: AttemptTimer,
  ) {}

  /** One write, sent once within its time (lib/stores/call-deadlines.ts). */
  private write<T>(deadline: Deadline | undefined, send: (options: SendOptions) => Promise<T>): Promise<T> {
    return sendWrite(this.attemptTimer, deadline, send);
  }

  async take(
    item: LimiterItem,
    write: { minute: number; newMinute: boolean; now: number; limits: Limits },
    deadline?: Deadline,
  ) {
    const key = limiterKey(item.keyId, item.day);
    const values = { ':one': 1, ':minute': write.minute, ':perDay': write.limits.perDay, ':now': write.now };
    const outcome = await conditionalWrite(() =>
      this.write(deadline, (options) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: key },
            ...(write.newMinute
              ? {
                  UpdateExpression:
                    'SET #day = if_not_exists(#day, :zero) + :one, #minute = :minute, #inMinute = :one, #refused = :zero, #expiresAt = :expiresAt',
                  ConditionExpression: `${MINUTE_BEFORE} AND ${DAY_BELOW_LIMIT} AND ${NOT_BANNED} AND ${NOT_REVOKED}`,
                  ExpressionAttributeNames: names(
                    '#day',
                    '#minute',
                    '#inMinute',
                    '#refused',
                    '#expiresAt',
                    '#bannedUntil',
                    '#bannedFrom',
                    '#revokedAt',
                  ),
                  ExpressionAttributeValues: { ...values, ':zero': 0, ':expiresAt': expiresAt(item.day.resetAt) },
                }
              : {
                  UpdateExpression: 'SET #day = #day + :one, #inMinute = #inMinute + :one',
                  ConditionExpression: `#minute = :minute AND #inMinute < :perMinute AND #day < :perDay AND ${NOT_BANNED} AND ${NOT_REVOKED}`,
                  ExpressionAttributeNames: names(
                    '#day',
                    '#minute',
                    '#inMinute',
                    '#bannedUntil',
                    '#bannedFrom',
                    '#revokedAt',
                  ),
                  ExpressionAttributeValues: { ...values, ':perMinute': write.limits.perMinute },
                }),
            ReturnValues: 'UPDATED_NEW',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          options,
        ),
      ),
    );
    if (!outcome.applied) return this.notApplied(key, outcome.found, deadline);
    const stored = stateOf(outcome.output.Attributes ?? {});
    return { applied: true as const, day: stored.day, inMinute: stored.inMinute };
  }

  async recordRefusal(item: LimiterItem, write: { minute: number; newMinute: boolean }, deadline?: Deadline) {
    const outcome = await conditionalWrite(() =>
      this.write(deadline, (options) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: limiterKey(item.keyId, item.day) },
            ...(write.newMinute
              ? {
                  UpdateExpression:
                    'SET #minute = :minute, #inMinute = :zero, #refused = :one, #expiresAt = :expiresAt',
                  ConditionExpression: MINUTE_BEFORE,
                  ExpressionAttributeNames: names('#minute', '#inMinute', '#refused', '#expiresAt'),
                  ExpressionAttributeValues: {
                    ':one': 1,
                    ':zero': 0,
                    ':minute': write.minute,
                    ':expiresAt': expiresAt(item.day.resetAt),
                  },
                }
              : {
                  UpdateExpression: 'ADD #refused :one',
                  ConditionExpression: '#minute = :minute',
                  ExpressionAttributeNames: names('#refused', '#minute'),
                  ExpressionAttributeValues: { ':one': 1, ':minute': write.minute },
                }),
            ReturnValues: 'UPDATED_NEW',
          }),
          options,
        ),
      ),
    );
    return outcome.applied ? (numberOf(outcome.output.Attributes?.refused) ?? 1) : undefined;
  }

  async writeBan(item: LimiterItem, ban: { from: number; until: number; now: number }, deadline?: Deadline) {
    const key = limiterKey(item.keyId, item.day);
    const outcome = await conditionalWrite(() =>
      this.write(deadline, (options) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: { pk: key },
            UpdateExpression: 'SET #bannedFrom = :from, #bannedUntil = :until, #expiresAt = :expiresAt',
            ConditionExpression: NO_BAN_IN_FORCE,
            ExpressionAttributeNames: names('#bannedFrom', '#bannedUntil', '#expiresAt'),
            ExpressionAttributeValues: {
              ':from': ban.from,
              ':until': ban.until,
              ':now': ban.now,
              ':expiresAt': expiresAt(Math.max(item.day.resetAt, ban.until)),
            },
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
          options,
        ),
      ),
    );
    return outcome.applied ? { applied: true as const } : this.notApplied(key, outcome.found, deadline);
  }

  async giveBack(item: LimiterItem, write: { minute: number }, deadline?: Deadline) {
    const key = { pk: limiterKey(item.keyId, item.day) };
    const inMinute = await conditionalWrite(() =>
      this.write(deadline, (options) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'SET #day = #day - :one, #inMinute = #inMinute - :one',
            ConditionExpression: '#minute = :minute AND #inMinute > :zero AND #day > :zero',
            ExpressionAttributeNames: names('#day', '#minute', '#inMinute'),
            ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':minute': write.minute },
          }),
          options,
        ),
      ),
    );
    if (inMinute.applied) return true;
    // The minute moved on (its slot no longer matters): the day's count is still this request's.
    const dayOnly = await conditionalWrite(() =>
      this.write(deadline, (options) =>
        this.doc.send(
          new UpdateCommand({
            TableName: this.table,
            Key: key,
            UpdateExpression: 'SET #day = #day - :one',
            ConditionExpression: '#minute <> :minute AND #day > :zero',
            ExpressionAttributeNames: names('#day', '#minute'),
            ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':minute': write.minute },
          }),
          options,
        ),
      ),
    );
    return dayOnly.applied;
  }

  /** The admin command's mark: no request waits on it, but it is cut at its attempt timeout like every write. */
  async markRevoked(item: LimiterItem, mark: { at: number }): Promise<void> {
    await this.write(undefined, (options) =>
      this.doc.send(
        new UpdateCommand({
          TableName: this.table,
          Key: { pk: limiterKey(item.keyId, item.day) },
          UpdateExpression:
            'SET #revokedAt = if_not_exists(#revokedAt, :at), #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
          ExpressionAttributeNames: names('#revokedAt', '#expiresAt'),
          ExpressionAttributeValues: { ':at': mark.at, ':expiresAt': expiresAt(item.day.resetAt) },
        }),
        options,
      ),
    );
  }

  read(item: LimiterItem, deadline?: Deadline): Promise<Found> {
    return this.readItem(limiterKey(item.keyId, item.day), deadline);
  }

  /**
   * The item a failed condition met. DynamoDB returns it (none: there is no item); the embedded
   * server never does, so there it is read, consistently, on this path only.
   */
  private async notApplied(key: string, item: Item | undefined, deadline: Deadline | undefined): Promise<NotApplied> {
    if (item) return { applied: false, found: stateOf(item) };
    return {
      applied: false,
      found: this.conditionFailures.returnedByServer ? 'absent' : await this.readItem(key, deadline),
    };
  }

  private async readItem(key: string, deadline?: Deadline): Promise<Found> {
    const { Item } = await this.doc.send(
      new GetCommand({ TableName: this.table, Key: { pk: key }, ConsistentRead: true }),
      readOptions(deadline),
    );
    return Item ? stateOf(Item) : 'absent';
  }
}

function stateOf(item: Item): LimiterState {
  return {
    day: numberOf(item.day) ?? 0,
    minute: numberOf(item.minute),
    inMinute: numberOf(item.inMinute) ?? 0,
    refused: numberOf(item.refused) ?? 0,
    bannedFrom: numberOf(item.bannedFrom),
    bannedUntil: numberOf(item.bannedUntil),
    revoked: item.revokedAt !== undefined,
  };
}

/** DynamoDB expressions may only name the attributes they use, so each takes its own subset. */
function names(...keys: Name[]): Record<string, string> {
  return Object.fromEntries(keys.map((k) => [k, NAMES[k]]));
}
