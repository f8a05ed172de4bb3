// Event delivery's own table (lib/contract/tables.ts webhookDeliveries): two kinds of item, both expiring.
//
// - Per endpoint and order (`order#<endpointId>#<orderId>`): the latest change of the order sent to
//   the endpoint (`sent`, its updatedAt: the highest ever claimed), the latest it acknowledged
//   (`acked`), and the lease of the one attempt in flight (`leaseOwner`, `leaseUntil`). An attempt
//   claims the lease with one conditional write that also requires its change to be no older than
//   any sent before, so once a change has been sent no older one ever is, whatever order the queue
//   hands events out in, however many workers hold them, and whether or not the acknowledgement's
//   write landed (the argument: docs/design.md#event-delivery).
// - Per endpoint (`log#<endpointId>`): its attempts, newest last by sort key, for `GET .../deliveries`
//   and admin `webhooks deliveries`.
//
// Writes go through the retrying client (each is safe to apply twice: a claim retried finds its own
// lease and is refused, which the worker treats as a wait), cut at the per-attempt timeout.
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { Deadline } from '../commons/deadline';
import {
  WEBHOOK_DELIVERY,
  WEBHOOK_DELIVERY_OUTCOMES,
  type DeliveredEventType,
  type WebhookDeliveryAttempt,
  type WebhookDeliveryOutcome,
} from '../contract/webhook-delivery';
import { TABLES } from '../contract/tables';
import { readOptions, sendWrite, type AttemptTimer } from './call-deadlines';
import { conditionalWrite, type ConditionFailureItems, type Item } from './conditional';
import { numberOf } from './numbers';

const EXPIRES_AT = TABLES.webhookDeliveries.ttlAttribute;
const STATE = 'state';

/** What a claim of an order's attempt found. */
export type OrderClaim =
  /** The lease is this attempt's until `until` (epoch ms): it may send, and must have ended by then. */
  | { claimed: true; until: number }
  /** The receiver acknowledged this change or a later one, or a later change was sent: nothing to send. */
  | { claimed: false; superseded: { acknowledged: string } | { sent: string } }
  /** Another attempt of the order holds the lease until `busyUntil`. */
  | { claimed: false; busyUntil: number };

const orderKey = (endpointId: string, orderId: string) => ({ pk: `order#${endpointId}#${orderId}`, sk: STATE });
const logPartition = (endpointId: string) => `log#${endpointId}`;
const seconds = (ms: number) => Math.floor(ms / 1000);

export class WebhookDeliveriesRepository {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
    /** Whether a failed condition brings the item back (DynamoDB) or must be read (the embedded server). */
    private readonly conditionFailures: ConditionFailureItems,
    private readonly attemptTimer?: AttemptTimer,
  ) {}

  /**
   * Claims the one attempt in flight of `updatedAt`'s change of the order to the endpoint, for
   * WEBHOOK_DELIVERY.leaseMs from `nowMs`: only while no other attempt holds the lease, no later
   * change has been sent, and the receiver has not acknowledged this change or a later one. The
   * claim records the change as sent: from then on no older change of the order goes to the endpoint.
   */
  async claimOrder(
    endpointId: string,
    orderId: string,
    updatedAt: string,
    owner: string,
    nowMs: number,
    /** A replay's: the change is sent again even when the receiver acknowledged it (it lost it). */
    resend = false,
  ): Promise<OrderClaim> {
    const until = nowMs + WEBHOOK_DELIVERY.leaseMs;
    const unacknowledged = resend ? '' : ' AND (attribute_not_exists(acked) OR acked < :change)';
    const outcome = await conditionalWrite(() =>
      this.write(
        new UpdateCommand({
          TableName: this.table,
          Key: orderKey(endpointId, orderId),
          ConditionExpression:
            '(attribute_not_exists(leaseUntil) OR leaseUntil < :now) AND (attribute_not_exists(sent) OR sent <= :change)' +
            unacknowledged,
          UpdateExpression: 'SET sent = :change, leaseOwner = :owner, leaseUntil = :until, #expires = :expires',
          ExpressionAttributeNames: { '#expires': EXPIRES_AT },
          ExpressionAttributeValues: {
            ':now': nowMs,
            ':change': updatedAt,
            ':owner': owner,
            ':until': until,
            ':expires': seconds(nowMs + WEBHOOK_DELIVERY.orderStateRetentionMs),
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      ),
    );
    if (outcome.applied) return { claimed: true, until };
    const found =
      outcome.found ??
      (this.conditionFailures.returnedByServer ? undefined : await this.orderState(endpointId, orderId));
    // This very claim landed already (a reply lost, the write tried again): the lease is ours.
    if (found?.leaseOwner === owner) return { claimed: true, until: numberOf(found.leaseUntil) ?? until };
    const acked = text(found?.acked);
    if (!resend && acked !== undefined && acked >= updatedAt)
      return { claimed: false, superseded: { acknowledged: acked } };
    const sent = text(found?.sent);
    if (sent !== undefined && sent > updatedAt) return { claimed: false, superseded: { sent } };
    // Held by another attempt (or, read a moment later, just freed: wait a moment all the same).
    const leaseUntil = numberOf(found?.leaseUntil);
    return { claimed: false, busyUntil: leaseUntil !== undefined && leaseUntil >= nowMs ? leaseUntil : nowMs };
  }

  /**
   * The receiver acknowledged `updatedAt`'s change: `acked` rises to it (never falls), and the lease
   * is given back if it is still this attempt's.
   */
  async acknowledge(
    endpointId: string,
    orderId: string,
    updatedAt: string,
    owner: string,
    nowMs: number,
  ): Promise<void> {
    const key = orderKey(endpointId, orderId);
    const expires = seconds(nowMs + WEBHOOK_DELIVERY.orderStateRetentionMs);
    const both = await conditionalWrite(() =>
      this.write(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          ConditionExpression: 'leaseOwner = :owner AND (attribute_not_exists(acked) OR acked < :change)',
          UpdateExpression: 'SET acked = :change, #expires = :expires REMOVE leaseOwner, leaseUntil',
          ExpressionAttributeNames: { '#expires': EXPIRES_AT },
          ExpressionAttributeValues: { ':owner': owner, ':change': updatedAt, ':expires': expires },
        }),
      ),
    );
    if (both.applied) return;
    // The lease ran out (another attempt may hold it now), or a later change was acknowledged: each apart.
    await conditionalWrite(() =>
      this.write(
        new UpdateCommand({
          TableName: this.table,
          Key: key,
          ConditionExpression: 'attribute_not_exists(acked) OR acked < :change',
          UpdateExpression: 'SET acked = :change, #expires = :expires',
          ExpressionAttributeNames: { '#expires': EXPIRES_AT },
          ExpressionAttributeValues: { ':change': updatedAt, ':expires': expires },
        }),
      ),
    );
    await this.release(endpointId, orderId, owner);
  }

  /** Gives the order's lease back, if it is still this attempt's (a failed attempt acknowledges nothing). */
  async release(endpointId: string, orderId: string, owner: string): Promise<void> {
    await conditionalWrite(() =>
      this.write(
        new UpdateCommand({
          TableName: this.table,
          Key: orderKey(endpointId, orderId),
          ConditionExpression: 'leaseOwner = :owner',
          UpdateExpression: 'REMOVE leaseOwner, leaseUntil',
          ExpressionAttributeValues: { ':owner': owner },
        }),
      ),
    );
  }

  /** What is remembered of the order at the endpoint: the latest change sent and the latest acknowledged. */
  async orderProgress(endpointId: string, orderId: string): Promise<{ sent?: string; acked?: string }> {
    const item = await this.orderState(endpointId, orderId);
    const [sent, acked] = [text(item?.sent), text(item?.acked)];
    return { ...(sent !== undefined ? { sent } : {}), ...(acked !== undefined ? { acked } : {}) };
  }

  /** One attempt, in the endpoint's log (kept WEBHOOK_DELIVERY.logRetentionMs). */
  async logAttempt(endpointId: string, attempt: WebhookDeliveryAttempt): Promise<void> {
    const at = Date.parse(attempt.attemptedAt);
    const item = {
      pk: logPartition(endpointId),
      sk: `${attempt.attemptedAt}#${attempt.eventId}#${attempt.attempt}#${attempt.outcome}`,
      ...attempt,
      [EXPIRES_AT]: seconds(at + WEBHOOK_DELIVERY.logRetentionMs),
    };
    await sendWrite(this.attemptTimer, undefined, (options) =>
      this.doc.send(new PutCommand({ TableName: this.table, Item: item }), options),
    );
  }

  /** The endpoint's latest attempts, newest first: one Query (expired ones TTL has not removed yet left out). */
  async recentAttempts(
    endpointId: string,
    nowMs: number,
    limit: number = WEBHOOK_DELIVERY.logShown,
    deadline?: Deadline,
  ): Promise<WebhookDeliveryAttempt[]> {
    const { Items } = await this.doc.send(
      new QueryCommand({
        TableName: this.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': logPartition(endpointId) },
        ScanIndexForward: false,
        Limit: limit,
      }),
      readOptions(deadline),
    );
    return (Items ?? []).filter((item) => (numberOf(item[EXPIRES_AT]) ?? Infinity) * 1000 > nowMs).map(attemptFromItem);
  }

  private orderState(endpointId: string, orderId: string): Promise<Item | undefined> {
    return this.doc
      .send(new GetCommand({ TableName: this.table, Key: orderKey(endpointId, orderId), ConsistentRead: true }))
      .then((output) => output.Item);
  }

  private write(command: UpdateCommand) {
    return sendWrite(this.attemptTimer, undefined, (options) => this.doc.send(command, options));
  }
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

function attemptFromItem(item: Item): WebhookDeliveryAttempt {
  const outcome = item.outcome as WebhookDeliveryOutcome;
  const { eventId, type, attemptedAt } = item;
  const attempt = numberOf(item.attempt);
  if (
    typeof eventId !== 'string' ||
    typeof type !== 'string' ||
    typeof attemptedAt !== 'string' ||
    attempt === undefined ||
    !WEBHOOK_DELIVERY_OUTCOMES.includes(outcome)
  )
    throw new Error('Malformed item in the deliveries log');
  const orderId = text(item.orderId);
  const updatedAt = text(item.updatedAt);
  const latencyMs = numberOf(item.latencyMs);
  const responseStatus = numberOf(item.responseStatus);
  const detail = text(item.detail);
  const nextAttemptAt = text(item.nextAttemptAt);
  return {
    eventId,
    type: type as DeliveredEventType,
    ...(orderId !== undefined ? { orderId } : {}),
    ...(updatedAt !== undefined ? { updatedAt } : {}),
    attempt,
    attemptedAt,
    outcome,
    ...(latencyMs !== undefined ? { latencyMs } : {}),
    ...(responseStatus !== undefined ? { responseStatus } : {}),
    ...(detail !== undefined ? { detail } : {}),
    ...(nextAttemptAt !== undefined ? { nextAttemptAt } : {}),
  };
}
