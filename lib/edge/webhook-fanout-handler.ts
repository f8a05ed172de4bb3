// Event delivery's fan-out: the orders table's second stream consumer (functions/webhook-fanout.ts).
// For each change it names the event (lib/core/webhooks/change-events.ts), finds the enabled endpoints
// that want it (through the 10 s cache), and queues one delivery per endpoint. It only enqueues, so a
// slow or dead receiver never holds up the stream, the API or another endpoint. Idempotent: a batch
// may come twice, and each event's id is its change's (webhookEventId), so a delivery queued twice is
// one event to the receiver, and the worker sends it once it is acknowledged (lib/stores/webhook-deliveries.ts).
// A send SQS refused names its change's record in batchItemFailures: Lambda sends the batch again from there.
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { logger } from '../commons/logger';
import { changeEventType } from '../core/webhooks/change-events';
import { orderDelivery, type DeliveryMessage } from '../core/webhooks/delivery-message';
import { orderChangeOf } from '../stores/order-changes';
import type { EnabledEndpointsCache } from '../stores/webhook-endpoints';
import { DeliveryQueueError, type DeliveryQueue } from '../stores/webhook-queue';
import { businessMetrics } from './metrics';

export interface WebhookFanoutDeps {
  endpoints: Pick<EnabledEndpointsCache, 'wanting'>;
  queue: DeliveryQueue;
}

/** What one batch came to. */
export interface FannedOutBatch {
  /** Changes that raised an event. */
  events: number;
  /** Deliveries queued (an event times the endpoints wanting it). */
  queued: number;
}

export type WebhookFanoutHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/** Deliveries held before they are sent: a batch's memory stays bounded whatever the number of endpoints. */
const FLUSH_AT = 100;

/**
 * The deliveries of the batch's changes, in order, queued a hundred or so at a time; on a refused
 * send, the record of the first delivery not queued is named (every record before it is queued).
 */
export async function fanOutBatch(
  event: DynamoDBStreamEvent,
  deps: WebhookFanoutDeps,
): Promise<{ batch: FannedOutBatch; failedAt?: string }> {
  const batch: FannedOutBatch = { events: 0, queued: 0 };
  let pending: { message: DeliveryMessage; record: string }[] = [];
  const flush = async (): Promise<string | undefined> => {
    const sending = pending;
    pending = [];
    try {
      if (sending.length > 0) await deps.queue.send(sending.map(({ message }) => ({ message })));
      batch.queued += sending.length;
      return undefined;
    } catch (error) {
      const sent = error instanceof DeliveryQueueError ? error.firstUnsent : 0;
      batch.queued += sent;
      logger.error('could not queue order events: the batch is sent again from the first not queued', {
        error: error as Error,
      });
      return sending[sent]?.record ?? sending[0]?.record;
    }
  };
  for (const record of event.Records) {
    const change = orderChangeOf(record);
    // No change: a record of no order, or the index-lag canary's sentinel (orderChangeOf).
    if (change === undefined) continue;
    const type = changeEventType(change.before, change.after);
    const order = change.after;
    if (type === undefined || order?.updatedAt === undefined) continue;
    batch.events++;
    const stamped = { ...order, updatedAt: order.updatedAt };
    for (const endpoint of await deps.endpoints.wanting(type))
      pending.push({ record: change.sequenceNumber, message: orderDelivery(endpoint, type, stamped) });
    if (pending.length >= FLUSH_AT) {
      const failedAt = await flush();
      if (failedAt !== undefined) return { batch, failedAt };
    }
  }
  const failedAt = await flush();
  return failedAt === undefined ? { batch } : { batch, failedAt };
}

export function makeWebhookFanoutHandler(deps: WebhookFanoutDeps): WebhookFanoutHandler {
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler(async (event) => {
      const { batch, failedAt } = await fanOutBatch(event, deps);
      businessMetrics.webhookFanout(batch);
      return { batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
    });
}
