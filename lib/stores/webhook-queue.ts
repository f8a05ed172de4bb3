// The delivery queue (SQS, standard): the fan-out, the test route, `webhooks replay` and the worker's
// own retries send deliveries to it. Each message's group is its endpoint (MessageGroupId), which
// makes the queue a fair queue: when one endpoint holds a disproportionate share of the workers (a
// slow receiver, a backlog), SQS hands out the other endpoints' messages first
// (docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/sqs-fair-queues-detailed.html).
// A wait is a message timer (DelaySeconds, at most 15 minutes: sqs-message-timers.html); a longer
// one hops, the worker re-sending the message until its time comes (lib/core/webhooks/delivery-rules.ts).
import { SendMessageBatchCommand, SQSClient, type SendMessageBatchRequestEntry } from '@aws-sdk/client-sqs';
import { deliveryMessageJson, type DeliveryMessage } from '../core/webhooks/delivery-message';

/** One delivery to queue, and how many seconds it waits there first (0 to 900). */
export interface QueuedDelivery {
  message: DeliveryMessage;
  delaySeconds?: number;
}

/** SQS takes at most 10 messages a SendMessageBatch (its quotas page). */
export const SEND_BATCH_MAX = 10;

/** Some deliveries were not queued: `firstUnsent` is the index (in the order given) of the first. */
export class DeliveryQueueError extends Error {
  override readonly name = 'DeliveryQueueError';
  constructor(
    readonly firstUnsent: number,
    reason: string,
  ) {
    super(`Could not queue a delivery: ${reason}`);
  }
}

export interface DeliveryQueue {
  /** Queues each delivery; throws DeliveryQueueError naming the first not queued (those before it are). */
  send(deliveries: readonly QueuedDelivery[]): Promise<void>;
}

/** How many SendMessageBatch calls one send makes at once. */
const SENDS_AT_ONCE = 8;

export class SqsDeliveryQueue implements DeliveryQueue {
  constructor(
    private readonly client: SQSClient,
    /** The queue's URL, or where a function reads it (its environment) on first use. */
    private readonly queueUrl: string | (() => string),
  ) {}

  async send(deliveries: readonly QueuedDelivery[]): Promise<void> {
    const url = typeof this.queueUrl === 'string' ? this.queueUrl : this.queueUrl();
    const batches: { start: number; entries: SendMessageBatchRequestEntry[] }[] = [];
    for (let start = 0; start < deliveries.length; start += SEND_BATCH_MAX)
      batches.push({ start, entries: deliveries.slice(start, start + SEND_BATCH_MAX).map(entryOf) });
    let firstUnsent = Infinity;
    let reason = '';
    const failed = (index: number, why: string) => {
      if (index < firstUnsent) [firstUnsent, reason] = [index, why];
    };
    for (let next = 0; next < batches.length; next += SENDS_AT_ONCE) {
      await Promise.all(
        batches.slice(next, next + SENDS_AT_ONCE).map(async ({ start, entries }) => {
          try {
            const output = await this.client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
            for (const failure of output.Failed ?? [])
              failed(start + Number(failure.Id), `${failure.Code ?? 'failed'}: ${failure.Message ?? ''}`);
          } catch (error) {
            failed(start, error instanceof Error ? error.message : String(error));
          }
        }),
      );
      if (firstUnsent !== Infinity) throw new DeliveryQueueError(firstUnsent, reason);
    }
  }
}

function entryOf({ message, delaySeconds }: QueuedDelivery, index: number): SendMessageBatchRequestEntry {
  return {
    Id: String(index),
    MessageBody: deliveryMessageJson(message),
    // The fair queue's tenant: a slow or flooded endpoint does not hold up the others' messages.
    MessageGroupId: message.endpoint.id,
    ...(delaySeconds ? { DelaySeconds: delaySeconds } : {}),
  };
}

export interface SqsQueueOptions {
  /** An SQS-compatible endpoint (the local stack's emulated queue); AWS's when absent. */
  endpoint?: string;
  region?: string;
}

/** The SQS client the functions and the admin command send with; fixed credentials on a local endpoint. */
export function createSqsClient(options: SqsQueueOptions = {}): SQSClient {
  return new SQSClient({
    ...(options.region !== undefined ? { region: options.region } : {}),
    ...(options.endpoint
      ? { endpoint: options.endpoint, region: 'local', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}
