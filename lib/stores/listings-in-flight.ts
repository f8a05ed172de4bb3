// The per-key cap on listings in flight. A key with cap C has C slot items in the rate-limit table,
// `inflight#<keyId>#<n>` for n < C; a listing runs only while it holds one. A slot is taken by a
// conditional PutItem that succeeds only on a free slot (absent, its lease expired, or released by
// another listing), so no interleaving can put two leases in one slot: N parallel listings on a
// fresh key start at most C. A listing gives its slot back when it ends, fails or its client hangs
// up; one that never gets that far (a crash, the function killed at its timeout) holds it until
// its expiry, which is set past the function's deadline.
//
// Replies that come late or never: a lease write is idempotent (its condition also accepts the
// slot already holding this very lease), so the SDK's retries are safe, unlike the limiter's
// counting writes. But an attempt DynamoDB applies only after the SDK gave up on it can land after
// the listing ended. So a slot is not given back by deleting it: it is overwritten with a release
// mark carrying the lease id, which the lease's own late writes cannot take (and any other lease
// can), until the lease's expiry, after which a late write would be expired on arrival anyway. If
// every attempt's reply is lost the listing is answered 503, after one attempt to release the
// lease in case it was written; if that fails too, the slot stays taken until the lease expires (at
// most the function's timeout plus LEASE_EXPIRY_MARGIN_SECONDS).
//
// Every write is cut at the per-attempt timeout (its SDK retries within it); those made before the
// listing's first byte also carry its request's deadline (lib/stores/call-deadlines.ts), so none is
// sent after its answer and a 503 waits until one that went unanswered may have landed. A lease's
// release, after the first byte or at the listing's end, keeps only its own timeout.
import { randomUUID } from 'node:crypto';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  paginateScan,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../commons/deadline';
import { readOptions, sendWrite, type AttemptTimer } from './call-deadlines';
import { conditionalWrite } from './conditional';
import { logger } from '../commons/logger';
import { numberOf } from './numbers';
import { TABLES } from '../contract/tables';
import { CodedError } from '../contract/errors';
import { unixSeconds } from '../core/limiter/windows';

/**
 * A lease outlives the function's deadline by this much, so that a function whose clock runs
 * behind another's never frees a slot a running listing still holds.
 */
export const LEASE_EXPIRY_MARGIN_SECONDS = 60;

/** How long a lease lasts when the caller has no deadline to give: API Gateway's longest stream. */
export const DEFAULT_LEASE_SECONDS = 15 * 60;

const SLOT_PREFIX = 'inflight#';

/** Partition key of slot `slot` of a key; limiter items (`<keyId>#<day>`) have one `#` only. */
export function slotKey(keyId: string, slot: number): string {
  return `${SLOT_PREFIX}${keyId}#${slot}`;
}

/**
 * Every slot of the key is held by a listing still running. `retryAfterSeconds`: until the first
 * of their leases expires, at the latest (a listing that ends, or whose client hangs up, frees its
 * slot sooner).
 */
export class TooManyListingsError extends CodedError {
  override readonly name = 'TooManyListingsError';
  constructor(
    readonly cap: number,
    override readonly retryAfterSeconds: number,
  ) {
    super('TOO_MANY_LISTINGS', `All ${cap} listing slots of the key are taken`);
  }
}

/** Every stage-wide slot is held: the stage runs as many listings as it may. */
export class StageListingsFullError extends CodedError {
  override readonly name = 'StageListingsFullError';
  constructor(readonly cap: number) {
    // A capacity refusal, not the key's doing.
    super('SERVICE_UNAVAILABLE', `All ${cap} listing slots of the stage are taken`);
  }
}

/**
 * The holder of the stage-wide slots, `inflight#*stage#<n>`: no key id contains `*`, so no key's
 * slots are the stage's.
 */
export const STAGE_HOLDER = '*stage';

/**
 * One listing's hold on a slot. `release` is idempotent and never throws; before the listing's
 * first byte it carries the request's deadline, after it none.
 */
export interface Lease {
  readonly slot: number;
  release(deadline?: Deadline): Promise<void>;
}

const EXPIRES_AT = TABLES.rateLimits.ttlAttribute;
/** Set on a slot its lease gave back: free for any other lease, never again for that one. */
const RELEASED = 'released';

export class ListingsInFlight {
  /**
   * `stageCap`: listings the whole stage may run at once (lib/contract/deployment.ts
   * stageListingsCap); a listing takes one of those slots before one of its key's. None: no stage cap.
   */
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    private readonly now: () => number = Date.now,
    private readonly stageCap?: number,
    /** Each write's own timeout and timers (the composition root's); the client's own timeouts alone when absent. */
    private readonly attemptTimer?: AttemptTimer,
  ) {}

  /**
   * Takes a free slot of the stage (StageListingsFullError when all are held), then one of
   * `keyId` (TooManyListingsError when all `cap` are held, and the stage's slot is given back),
   * each for at most `holdMs` (the caller's remaining time). The lease releases both. With the
   * request's `deadline`, every write and read until the lease is handed back carries it.
   */
  async acquire(
    keyId: string,
    cap: number,
    holdMs: number = DEFAULT_LEASE_SECONDS * 1000,
    deadline?: Deadline,
  ): Promise<Lease> {
    const stageCap = this.stageCap;
    if (stageCap === undefined) return this.takeSlot(keyId, cap, holdMs, 0, deadline);
    // A random first slot, so concurrent listings do not all contend for slot 0 of the stage.
    const stage = await this.takeSlot(
      STAGE_HOLDER,
      stageCap,
      holdMs,
      Math.floor(Math.random() * stageCap),
      deadline,
    ).catch((error: unknown) => {
      throw error instanceof TooManyListingsError ? new StageListingsFullError(stageCap) : error;
    });
    let own: Lease;
    try {
      own = await this.takeSlot(keyId, cap, holdMs, 0, deadline);
    } catch (error) {
      await stage.release(deadline);
      throw error;
    }
    return {
      slot: own.slot,
      release: async (within?: Deadline) => void (await Promise.all([own.release(within), stage.release(within)])),
    };
  }

  /** A free slot of `keyId`'s first `cap` (the stage's: STAGE_HOLDER), trying them from `first` round. */
  private async takeSlot(
    keyId: string,
    cap: number,
    holdMs: number,
    first: number,
    deadline: Deadline | undefined,
  ): Promise<Lease> {
    const lease = randomUUID();
    const now = unixSeconds(this.now());
    const expiresAt = now + Math.ceil(holdMs / 1000) + LEASE_EXPIRY_MARGIN_SECONDS;
    for (let n = 0; n < cap; n++) {
      const slot = (first + n) % cap;
      let taken: boolean;
      try {
        taken = await this.take(slotKey(keyId, slot), lease, now, expiresAt, deadline);
      } catch (error) {
        // The write may have landed and only its reply been lost, or may land yet.
        await this.free(keyId, slot, lease, expiresAt, deadline);
        throw error;
      }
      if (taken) {
        let released: Promise<void> | undefined;
        return {
          slot,
          release: (within?: Deadline) => (released ??= this.free(keyId, slot, lease, expiresAt, within)),
        };
      }
    }
    throw new TooManyListingsError(cap, Math.max(1, (await this.firstExpiry(keyId, cap, deadline)) - now));
  }

  /** When the first lease of the key's slots expires (unix seconds), read consistently. */
  private async firstExpiry(keyId: string, cap: number, deadline: Deadline | undefined): Promise<number> {
    const now = unixSeconds(this.now());
    const expiries = await Promise.all(
      Array.from({ length: cap }, async (_, slot) => {
        const { Item } = await this.doc.send(
          new GetCommand({ TableName: this.table, Key: { pk: slotKey(keyId, slot) }, ConsistentRead: true }),
          readOptions(deadline),
        );
        // A slot freed since it was tried is free now.
        return Item?.[RELEASED] === true ? now : (numberOf(Item?.[EXPIRES_AT]) ?? now);
      }),
    );
    return Math.min(...expiries);
  }

  /** How many of the key's first `cap` slots hold a lease that has not expired nor been released, read consistently. */
  async held(keyId: string, cap: number): Promise<number> {
    const now = unixSeconds(this.now());
    const items = await Promise.all(
      Array.from({ length: cap }, (_, slot) =>
        this.doc.send(
          new GetCommand({ TableName: this.table, Key: { pk: slotKey(keyId, slot) }, ConsistentRead: true }),
        ),
      ),
    );
    return items.filter(({ Item }) => Item?.[RELEASED] !== true && (numberOf(Item?.[EXPIRES_AT]) ?? 0) >= now).length;
  }

  private async take(
    pk: string,
    lease: string,
    now: number,
    expiresAt: number,
    deadline: Deadline | undefined,
  ): Promise<boolean> {
    const outcome = await conditionalWrite(() =>
      sendWrite(this.attemptTimer, deadline, (options) =>
        this.doc.send(
          new PutCommand({
            TableName: this.table,
            Item: { pk, lease, [EXPIRES_AT]: expiresAt },
            // Free (absent, expired, or released by another lease), or already this lease's (a retry).
            ConditionExpression:
              'attribute_not_exists(pk) OR #expiresAt < :now OR (#released = :true AND #lease <> :lease) OR (#lease = :lease AND attribute_not_exists(#released))',
            ExpressionAttributeNames: { '#expiresAt': EXPIRES_AT, '#lease': 'lease', '#released': RELEASED },
            ExpressionAttributeValues: { ':now': now, ':lease': lease, ':true': true },
          }),
          options,
        ),
      ),
    );
    return outcome.applied;
  }

  /**
   * Marks the slot released by this lease, unless another lease holds it by now; the mark lasts as
   * long as the lease would have, so none of the lease's own late writes can take the slot back. A
   * failure is logged, and the lease left to expire.
   */
  private async free(
    keyId: string,
    slot: number,
    lease: string,
    expiresAt: number,
    deadline: Deadline | undefined,
  ): Promise<void> {
    const pk = slotKey(keyId, slot);
    try {
      await conditionalWrite(() =>
        sendWrite(this.attemptTimer, deadline, (options) =>
          this.doc.send(
            new PutCommand({
              TableName: this.table,
              Item: { pk, lease, [RELEASED]: true, [EXPIRES_AT]: expiresAt },
              ConditionExpression: 'attribute_not_exists(pk) OR #lease = :lease',
              ExpressionAttributeNames: { '#lease': 'lease' },
              ExpressionAttributeValues: { ':lease': lease },
            }),
            options,
          ),
        ),
      );
    } catch (error) {
      logger.error('a listing slot could not be freed; it stays taken until its lease expires', error as Error);
    }
  }
}

/**
 * Frees every slot of every key, whatever holds it. Only for a store no listing can still be
 * running against: the local stack's own embedded server when it starts, after a stop that could
 * not free them (kill -9). Returns how many slots were held. A function, not a method, so the
 * deployed bundles leave it (and the paginator) out.
 */
export async function releaseAllSlots(doc: DynamoDBDocumentClient, table: string): Promise<number> {
  let freed = 0;
  const pages = paginateScan(
    { client: doc },
    {
      TableName: table,
      FilterExpression: 'begins_with(pk, :slot)',
      ExpressionAttributeValues: { ':slot': SLOT_PREFIX },
      ProjectionExpression: 'pk',
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      await doc.send(new DeleteCommand({ TableName: table, Key: { pk: item.pk } }));
      freed++;
    }
  }
  return freed;
}
