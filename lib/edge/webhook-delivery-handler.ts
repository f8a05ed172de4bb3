// The delivery worker (functions/webhook-delivery.ts): the delivery queue's consumer. Each message is
// one event for one endpoint (lib/core/webhooks/delivery-message.ts); for it the worker
// 1. waits again (a new hop on the queue) when its time has not come;
// 2. reads the endpoint afresh: deleted or disabled, the delivery is dropped;
// 3. takes the endpoint's turn: while it fails, one probe at a time once its retry is due, the other
//    events wait on the queue holding no worker (lib/core/webhooks/delivery-rules.ts);
// 4. claims the order's lease (lib/stores/webhook-deliveries.ts): never an older change after a later
//    one was sent, one attempt per endpoint and order at a time;
// 5. checks the URL and resolves its host again (lib/stores/webhook-destinations.ts) and POSTs the
//    signed event to an address that check accepted, within 10 s and before its lease ends;
// 6. a 2xx is delivered; 410 disables the endpoint (gone); anything else is a failed attempt, retried
//    on the schedule (lib/contract/webhook-delivery.ts) for 3 days, and an endpoint failing that
//    long is disabled (failing, or refused-address when its host resolved to an address events may
//    not go to). Every attempt goes to the deliveries log.
// A message is deleted once handled (a retry or a wait is a new message, sent first); one the worker
// could not finish is named in batchItemFailures and comes back after the queue's visibility timeout.
import { randomUUID } from 'node:crypto';
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { withinInvocation, type Deadline } from '../commons/deadline';
import { logger } from '../commons/logger';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { CodedError } from '../contract/errors';
import { SYNC_TIMING } from '../contract/sync';
import { signingSecrets, WEBHOOK_LIMITS, type WebhookEndpointRecord } from '../contract/webhooks';
import { WEBHOOK_DELIVERY, type WebhookDeliveryAttempt } from '../contract/webhook-delivery';
import { parseDeliveryMessage, type DeliveryMessage } from '../core/webhooks/delivery-message';
import {
  endpointTurn,
  failedForWindow,
  failingAfter,
  hopDelaySeconds,
  nextAttemptAt,
  probeHoldUntil,
  waitForEndpoint,
} from '../core/webhooks/delivery-rules';
import { signedHeaders } from '../core/webhooks/signature';
import type { WebhookDeliveriesRepository } from '../stores/webhook-deliveries';
import { REQUEST_TIMEOUT_MS } from '../stores/dynamo';
import { checkDestination, type DestinationCheck } from '../stores/webhook-destinations';
import type { EndpointRef, WebhookEndpointsRepository } from '../stores/webhook-endpoints';
import { DeliveryQueueError, type DeliveryQueue, type QueuedDelivery } from '../stores/webhook-queue';
import { postWebhook, type PostOutcome, type WebhookPost } from '../stores/webhook-sender';
import { businessMetrics, type DeliveredBatch } from './metrics';

export interface WebhookDeliveryDeps {
  endpoints: Pick<
    WebhookEndpointsRepository,
    'getForDelivery' | 'disable' | 'markFailing' | 'claimProbe' | 'markHealthy'
  >;
  deliveries: Pick<WebhookDeliveriesRepository, 'claimOrder' | 'acknowledge' | 'release' | 'logAttempt'>;
  /** Where retries and waits are queued: the worker's own queue. */
  queue: DeliveryQueue;
  /** The URL rules (the local stack's loopback allowance) and the resolver. */
  destinations: DestinationCheck;
  /** AWS's time: leases, the endpoint's failing state and the log are stamped with it. */
  now: () => number;
  /** The attempt's and the invocation's timers; the real ones unless a test runs on a virtual clock. */
  timers?: Timers;
  random?: () => number;
  /** Sends one attempt (postWebhook unless a test gives its own). */
  post?: (post: WebhookPost, timers: Timers) => Promise<PostOutcome>;
  /**
   * The local stack's `--webhook-fail-rate`: this share of the attempts a receiver acknowledged are
   * taken as failed all the same (as if the answer were lost), so a receiver sees its retries. Never deployed.
   */
  failRate?: number;
}

export type WebhookDeliveryHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/** Kept from the lease's end: twice the clock allowance between two workers, and half a second. */
const LEASE_MARGIN_MS = 2 * SYNC_TIMING.clockErrorMs + 500;
/**
 * What a message needs of its invocation to be started: its lease (the attempt ends within it), and
 * the writes after it (the acknowledgement, the endpoint's state), each within the per-attempt timeout.
 */
export const MESSAGE_TIME_MS = WEBHOOK_DELIVERY.leaseMs + 2 * REQUEST_TIMEOUT_MS;

const iso = (ms: number) => new Date(ms).toISOString();
const refOf = (message: DeliveryMessage): EndpointRef => message.endpoint;

interface Run {
  deps: WebhookDeliveryDeps;
  timers: Timers;
  random: () => number;
  deadline: Deadline | undefined;
  batch: DeliveredBatch;
  /** Messages to queue again (retries and waits), with the message of the batch each replaces. */
  requeued: { messageId: string; delivery: QueuedDelivery }[];
}

/** One message of the batch being handled. */
interface Handling {
  messageId: string;
  message: DeliveryMessage;
}

/** The attempt's outcome, as the log and the rules read it. */
type Outcome =
  | { kind: 'acknowledged'; status: number; latencyMs: number }
  | { kind: 'gone'; status: number; latencyMs: number }
  | { kind: 'failed'; detail: string; refused: boolean; status?: number; latencyMs?: number };

/**
 * Queues the message again, to go at `untilMs` (a hop of at most 15 minutes at a time): held until
 * the batch is handled, then sent together, before any message of the batch is deleted.
 */
function requeue(run: Run, handling: Handling, untilMs: number): void {
  const now = run.deps.now();
  const { message } = handling;
  const delivery = { message: { ...message, notBefore: iso(untilMs) }, delaySeconds: hopDelaySeconds(untilMs, now) };
  run.requeued.push({ messageId: handling.messageId, delivery });
}

/** Queues the message again to wait for its time, its endpoint's turn or its order's lease. */
function later(run: Run, handling: Handling, untilMs: number): void {
  requeue(run, handling, untilMs);
  run.batch.waits++;
}

async function log(run: Run, message: DeliveryMessage, entry: Omit<WebhookDeliveryAttempt, 'eventId' | 'type'>) {
  const attempt: WebhookDeliveryAttempt = {
    eventId: message.eventId,
    type: message.type,
    ...(message.order ? { orderId: message.order.id, updatedAt: message.order.updatedAt } : {}),
    ...entry,
  };
  // The log is for people to read: a write that fails is logged, and the delivery goes on.
  await run.deps.deliveries.logAttempt(message.endpoint.id, attempt).catch((error: unknown) => {
    logger.error('could not write the deliveries log', { error: error as Error, endpointId: message.endpoint.id });
  });
}

/** One attempt: the destination checked now, the event signed now, POSTed to a checked address before `endsBy`. */
async function attemptOnce(
  run: Run,
  message: DeliveryMessage,
  record: WebhookEndpointRecord,
  endsBy: number,
): Promise<Outcome> {
  const { deps } = run;
  let destination;
  try {
    destination = await checkDestination(record.url, deps.destinations, run.deadline);
  } catch (error) {
    const refused = error instanceof CodedError && error.code !== 'SERVICE_UNAVAILABLE';
    return { kind: 'failed', refused, detail: error instanceof Error ? error.message : String(error) };
  }
  const [address] = destination.addresses;
  const now = deps.now();
  const timeoutMs = Math.min(WEBHOOK_LIMITS.deliveryTimeoutMs, endsBy - now);
  if (address === undefined || timeoutMs <= 0)
    return { kind: 'failed', refused: false, detail: 'no time was left to send the attempt before its lease ended' };
  const headers = signedHeaders(
    signingSecrets(record.secrets, now),
    message.eventId,
    Math.floor(now / 1000),
    message.body,
  );
  const post = deps.post ?? postWebhook;
  const answer = await post(
    {
      url: destination.url,
      address,
      headers,
      body: message.body,
      timeoutMs,
      ...(run.deadline ? { signal: run.deadline.signal } : {}),
    },
    run.timers,
  );
  if ('error' in answer) return { kind: 'failed', refused: false, detail: answer.error, latencyMs: answer.latencyMs };
  const { status, latencyMs } = answer;
  if (status >= 200 && status < 300) {
    if (deps.failRate !== undefined && run.random() < deps.failRate)
      return {
        kind: 'failed',
        refused: false,
        status,
        latencyMs,
        detail: `answered ${status}, taken as failed on purpose (--webhook-fail-rate)`,
      };
    return { kind: 'acknowledged', status, latencyMs };
  }
  if (status === 410) return { kind: 'gone', status, latencyMs };
  const detail =
    status >= 300 && status < 400
      ? `answered ${status}: redirects are not followed, a 3xx is a failure`
      : `answered ${status}`;
  return { kind: 'failed', refused: false, status, latencyMs, detail };
}

/**
 * Counts a failed attempt (started at `startedAt`) into the endpoint's failing state, with a
 * conditional write on the state it read; read again and decided afresh when another worker changed
 * it first. The state as it now is (undefined when the endpoint is gone or disabled meanwhile).
 */
async function recordFailure(run: Run, ref: EndpointRef, seen: WebhookEndpointRecord, startedAt: number) {
  let record: WebhookEndpointRecord | undefined = seen;
  for (let round = 0; round < 3 && record?.state.status === 'enabled'; round++) {
    const next = failingAfter(record.failing, startedAt, run.deps.now(), run.random);
    if (next === undefined) return record.failing;
    if (await run.deps.endpoints.markFailing(ref, record.failing, next)) return next;
    record = await run.deps.endpoints.getForDelivery(ref);
  }
  return record?.state.status === 'enabled' ? record.failing : undefined;
}

/** Handles one message to the end: sent and acknowledged, retried, waiting, or dropped. */
async function handle(run: Run, handling: Handling): Promise<void> {
  const { deps, random } = run;
  const { message } = handling;
  const now = deps.now();
  const due = message.notBefore === undefined ? now : Date.parse(message.notBefore);
  if (due > now) return later(run, handling, due);
  const ref = refOf(message);
  const record = await deps.endpoints.getForDelivery(ref);
  if (record === undefined || record.state.status !== 'enabled') {
    logger.info('delivery dropped: its endpoint is deleted or disabled', {
      endpointId: ref.id,
      eventId: message.eventId,
    });
    return;
  }
  const turn = endpointTurn(record.failing, now);
  if (!turn.go) return later(run, handling, waitForEndpoint(turn.until, random));
  const attempt = message.attempts + 1;
  const owner = randomUUID();
  const { order } = message;
  let endsBy = now + WEBHOOK_DELIVERY.leaseMs - LEASE_MARGIN_MS;
  if (order) {
    const claim = await deps.deliveries.claimOrder(ref.id, order.id, order.updatedAt, owner, now, message.resend);
    if (!claim.claimed && 'superseded' in claim) {
      run.batch.superseded++;
      const by = claim.superseded;
      const detail =
        'acknowledged' in by
          ? `not sent: the receiver acknowledged ${by.acknowledged === order.updatedAt ? 'this change' : `a later change (${by.acknowledged})`} of the order`
          : `not sent: a later change of the order (${by.sent}) was sent first`;
      return log(run, message, { attempt, attemptedAt: iso(now), outcome: 'superseded', detail });
    }
    if (!claim.claimed) return later(run, handling, claim.busyUntil + Math.floor(random() * 1000));
    endsBy = claim.until - LEASE_MARGIN_MS;
  }
  const release = () => (order ? deps.deliveries.release(ref.id, order.id, owner) : Promise.resolve());
  if (turn.probe && record.failing) {
    const hold = probeHoldUntil(now);
    if (!(await deps.endpoints.claimProbe(ref, record.failing.retryAt, iso(hold)))) {
      await release();
      return later(run, handling, waitForEndpoint(hold, random));
    }
  }
  const startedAt = deps.now();
  const firstAttemptAt = message.firstAttemptAt === undefined ? startedAt : Date.parse(message.firstAttemptAt);
  const outcome = await attemptOnce(run, message, record, endsBy);
  const endedAt = deps.now();
  const sent = {
    attempt,
    attemptedAt: iso(startedAt),
    ...('latencyMs' in outcome && outcome.latencyMs !== undefined ? { latencyMs: outcome.latencyMs } : {}),
  };
  const answered = 'status' in outcome && outcome.status !== undefined ? { responseStatus: outcome.status } : {};
  if (outcome.kind === 'acknowledged') {
    // Before anything else: the acknowledgement is what later claims are refused by.
    if (order) await deps.deliveries.acknowledge(ref.id, order.id, order.updatedAt, owner, endedAt);
    if (record.failing) await deps.endpoints.markHealthy(ref);
    run.batch.delivered++;
    if (order) {
      const age = endedAt - Date.parse(order.updatedAt);
      run.batch.eventAgeMaxMs = Math.max(run.batch.eventAgeMaxMs ?? age, age);
    }
    return log(run, message, { ...sent, ...answered, outcome: 'delivered' });
  }
  await release();
  if (outcome.kind === 'gone') {
    await deps.endpoints.disable(
      ref,
      'gone',
      `Answered 410 Gone to ${message.eventId} at ${iso(endedAt)}`,
      new Date(endedAt),
    );
    run.batch.gone++;
    return log(run, message, {
      ...sent,
      ...answered,
      outcome: 'gone',
      detail: 'answered 410 Gone: the endpoint is disabled',
    });
  }
  run.batch.failed++;
  const failing = await recordFailure(run, ref, record, startedAt);
  if (failing !== undefined && failedForWindow(failing, endedAt)) {
    const reason = outcome.refused ? 'refused-address' : 'failing';
    const detail = `Every attempt failed since ${failing.since}; the last (${message.eventId}, ${iso(endedAt)}): ${outcome.detail}`;
    await deps.endpoints.disable(ref, reason, detail, new Date(endedAt));
    return log(run, message, {
      ...sent,
      ...answered,
      outcome: 'failed',
      detail: `${outcome.detail}; the endpoint failed for ${WEBHOOK_LIMITS.retryWindowMs / 3_600_000} hours and is disabled`,
    });
  }
  const next = nextAttemptAt(
    attempt,
    firstAttemptAt,
    endedAt,
    random,
    failing ? Date.parse(failing.retryAt) : undefined,
  );
  if (next === undefined)
    return log(run, message, {
      ...sent,
      ...answered,
      outcome: 'failed',
      detail: `${outcome.detail}; given up: retried for ${WEBHOOK_LIMITS.retryWindowMs / 3_600_000} hours`,
    });
  requeue(run, { ...handling, message: { ...message, attempts: attempt, firstAttemptAt: iso(firstAttemptAt) } }, next);
  return log(run, message, {
    ...sent,
    ...answered,
    outcome: 'failed',
    detail: outcome.detail,
    nextAttemptAt: iso(next),
  });
}

/**
 * The batch's messages, each handled at once (different endpoints and orders); those not finished
 * (an error, or too little of the invocation left to start an attempt within its lease) are named.
 */
export async function deliverBatch(
  event: SQSEvent,
  deps: WebhookDeliveryDeps,
  deadline?: Deadline,
): Promise<{ batch: DeliveredBatch; unfinished: string[] }> {
  const timers = deadline?.timers ?? deps.timers ?? REAL_TIMERS;
  const run: Run = {
    deps,
    timers,
    random: deps.random ?? Math.random,
    deadline,
    batch: { delivered: 0, failed: 0, gone: 0, superseded: 0, waits: 0 },
    requeued: [],
  };
  const unfinished: string[] = [];
  await Promise.all(
    event.Records.map(async (record: SQSRecord) => {
      const message = parseDeliveryMessage(record.body);
      if (message === undefined) {
        // Never readable, by any worker: logged and dropped rather than retried into the dead-letter queue.
        logger.error('a delivery message this worker cannot read was dropped', { messageId: record.messageId });
        return;
      }
      if (deadline && deadline.answerAt - timers.now() < MESSAGE_TIME_MS) {
        unfinished.push(record.messageId);
        return;
      }
      try {
        await handle(run, { messageId: record.messageId, message });
      } catch (error) {
        logger.error('a delivery could not be finished: it comes back after the visibility timeout', {
          error: error as Error,
          eventId: message.eventId,
          endpointId: message.endpoint.id,
        });
        unfinished.push(record.messageId);
      }
    }),
  );
  // The retries and waits, before the batch's messages are deleted: one not queued keeps its message.
  try {
    await deps.queue.send(run.requeued.map(({ delivery }) => delivery));
  } catch (error) {
    const from = error instanceof DeliveryQueueError ? error.firstUnsent : 0;
    logger.error('could not queue retries and waits: their messages come back after the visibility timeout', {
      error: error as Error,
    });
    unfinished.push(...run.requeued.slice(from).map(({ messageId }) => messageId));
  }
  return { batch: run.batch, unfinished };
}

export function makeWebhookDeliveryHandler(deps: WebhookDeliveryDeps): WebhookDeliveryHandler {
  const timers = deps.timers ?? REAL_TIMERS;
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((event, context) =>
      withinInvocation(
        context.getRemainingTimeInMillis?.(),
        timers,
        SYNC_TIMING.unansweredLandingMs,
        async (deadline) => {
          const { batch, unfinished } = await deliverBatch(event, deps, deadline);
          businessMetrics.webhookDeliveries(batch);
          return { batchItemFailures: unfinished.map((itemIdentifier) => ({ itemIdentifier })) };
        },
      ),
    );
}
