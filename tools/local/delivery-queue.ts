// The delivery queue, emulated: an SQS standard queue with its dead-letter queue, and Lambda's event
// source mapping on it, with the settings the stack deploys (lib/contract/deployment.ts QUEUE_MAPPINGS).
// No kinder than AWS (docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/
// standard-queues.html, sqs-visibility-timeout.html, sqs-message-timers.html, sqs-dead-letter-queues.html;
// docs.aws.amazon.com/lambda/latest/dg/services-sqs-errorhandling.html):
// - at least once, in no promised order: visible messages are handed out in a random order, and a
//   share of receives (`duplicateRate`) leaves the message visible too, so another receive gets it again;
// - a message timer (DelaySeconds, 0 to 900 s) hides a new message; a received one is hidden for the
//   visibility timeout and comes back unless deleted; received more than maxReceiveCount times, it
//   moves to the dead-letter queue instead; kept at most the retention period;
// - the mapping invokes the function with up to batchSize messages, at most maxConcurrency
//   invocations at once; it deletes what the function handled (all of the batch, or all but the
//   batchItemFailures it names) and leaves the rest to come back; a function that throws leaves all.
// Batches go out by deliverDue() when due on the stack's clock (tests move a virtual one), or on real
// timers with `autoDeliver` (npm start). tools/local/sqs-endpoint.ts serves the queue's SendMessage
// and SendMessageBatch over SQS's own protocol, so the service and the admin command send with the SDK.
import { createHash, randomUUID } from 'node:crypto';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { QueueMapping } from '../../lib/contract/deployment';
import { dueTimerIf, type DueTimer } from './due-timer';

/** SQS's bounds on what a send may carry (its quotas: 10 entries, a 15-minute timer, 256 KiB). */
export const SQS_LIMITS = { batchEntries: 10, maxDelaySeconds: 900, maxBytes: 256 * 1024 } as const;

/** A send SQS refuses: its error code (as SQS names it) and why. */
export class QueueRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StoredMessage {
  messageId: string;
  body: string;
  groupId?: string;
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt?: number;
  /** Changes with every receive: only the latest one deletes. */
  receipt?: string;
}

export interface NewMessage {
  body: string;
  delaySeconds?: number;
  groupId?: string;
}

export interface LocalQueueOptions {
  settings: QueueMapping;
  now?: () => number;
  random?: () => number;
  /** The share of receives that leave the message visible as well (a duplicate), 0 by default. */
  duplicateRate?: number;
}

export const md5Hex = (text: string) => createHash('md5').update(text, 'utf8').digest('hex');

export class LocalQueue {
  readonly arn = 'arn:aws:sqs:local:000000000000:webhook-deliveries';
  private messages: StoredMessage[] = [];
  /** What the dead-letter queue holds: messages received too often without being deleted. */
  readonly deadLetters: StoredMessage[] = [];
  private readonly now: () => number;
  private readonly random: () => number;
  /** Called whenever a message is sent (the mapping's timers listen). */
  onSend: () => void = () => undefined;

  constructor(private readonly options: LocalQueueOptions) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Stores the messages (all, or none: a QueueRefusal); their ids, in order. */
  send(entries: readonly NewMessage[]): string[] {
    if (entries.length === 0) throw new QueueRefusal('EmptyBatchRequest', 'The batch request has no entries');
    if (entries.length > SQS_LIMITS.batchEntries)
      throw new QueueRefusal('TooManyEntriesInBatchRequest', `At most ${SQS_LIMITS.batchEntries} entries a batch`);
    const bytes = entries.reduce((sum, entry) => sum + Buffer.byteLength(entry.body), 0);
    if (bytes > SQS_LIMITS.maxBytes)
      throw new QueueRefusal('BatchRequestTooLong', `The batch is ${bytes} bytes; SQS takes ${SQS_LIMITS.maxBytes}`);
    for (const { delaySeconds = 0 } of entries)
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > SQS_LIMITS.maxDelaySeconds)
        throw new QueueRefusal('InvalidParameterValue', `DelaySeconds must be 0 to ${SQS_LIMITS.maxDelaySeconds}`);
    const now = this.now();
    const stored = entries.map(({ body, delaySeconds = 0, groupId }) => ({
      messageId: randomUUID(),
      body,
      ...(groupId !== undefined ? { groupId } : {}),
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
    }));
    this.messages.push(...stored);
    this.onSend();
    return stored.map((message) => message.messageId);
  }

  /** Up to `max` visible messages, in a random order, each hidden for the visibility timeout. */
  receive(max: number): StoredMessage[] {
    const now = this.now();
    const { retentionSeconds, visibilityTimeoutSeconds, maxReceiveCount } = this.options.settings;
    this.messages = this.messages.filter((message) => message.sentAt + retentionSeconds * 1000 > now);
    const visible = this.messages.filter((message) => message.visibleAt <= now);
    const taken: StoredMessage[] = [];
    while (taken.length < max && visible.length > 0) {
      const [message] = visible.splice(Math.floor(this.random() * visible.length), 1);
      if (message === undefined) break;
      if (message.receiveCount >= maxReceiveCount) {
        this.messages.splice(this.messages.indexOf(message), 1);
        this.deadLetters.push(message);
        continue;
      }
      message.receiveCount++;
      message.firstReceivedAt ??= now;
      message.receipt = randomUUID();
      // A duplicate: the same message stays visible for another receive.
      if (this.random() >= (this.options.duplicateRate ?? 0)) message.visibleAt = now + visibilityTimeoutSeconds * 1000;
      taken.push({ ...message });
    }
    return taken;
  }

  /** Deletes the message a receipt names, if it is still that receive's. */
  delete(receipt: string | undefined): void {
    const at = this.messages.findIndex((message) => message.receipt === receipt);
    if (at >= 0) this.messages.splice(at, 1);
  }

  /** When the next message becomes visible; undefined when the queue is empty. */
  nextVisibleAt(): number | undefined {
    return this.messages.reduce<number | undefined>((next, m) => Math.min(next ?? m.visibleAt, m.visibleAt), undefined);
  }

  /** Messages stored (visible, delayed or in flight). */
  get size(): number {
    return this.messages.length;
  }
}

export type QueueHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void | undefined>;

export interface QueueMappingOptions {
  settings: QueueMapping;
  handler: QueueHandler;
  context: () => Context;
  now?: () => number;
  autoDeliver?: boolean;
}

/** Lambda's event source mapping on the local queue. */
export class QueueEventSourceMapping {
  private readonly now: () => number;
  private delivering: Promise<void> = Promise.resolve();
  /** With autoDeliver, the real timer for the next visible message (Lambda long-polls: it takes one at once). */
  private readonly timer: DueTimer | undefined;
  /** Invocations made, failed ones included. */
  invocations = 0;

  constructor(
    private readonly queue: LocalQueue,
    private readonly options: QueueMappingOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.timer = dueTimerIf(options.autoDeliver, this.now, this);
    queue.onSend = () => this.timer?.schedule();
  }

  /** When a batch may next go, on the stack's clock; undefined when the queue is empty. */
  nextDueAt(): number | undefined {
    return this.queue.nextVisibleAt();
  }

  /** Invokes the function, up to maxConcurrency at once, until no message is visible now. */
  deliverDue(): Promise<void> {
    const pass = this.delivering.then(async () => {
      const lanes = Array.from({ length: this.options.settings.maxConcurrency }, () => this.lane());
      await Promise.all(lanes);
    });
    this.delivering = pass.catch(() => undefined);
    return pass;
  }

  close(): void {
    this.timer?.close();
  }

  /** One concurrent invocation slot: batches until none is visible now. */
  private async lane(): Promise<void> {
    for (;;) {
      const batch = this.queue.receive(this.options.settings.batchSize);
      if (batch.length === 0) return;
      await this.invoke(batch);
    }
  }

  private async invoke(batch: StoredMessage[]): Promise<void> {
    this.invocations++;
    let failed: Set<string>;
    try {
      const response = await this.options.handler(
        { Records: batch.map((m) => this.record(m)) },
        this.options.context(),
      );
      const named = (response ?? undefined)?.batchItemFailures ?? [];
      // An identifier naming no message of the batch fails it whole, as Lambda does.
      failed = named.every((f) => batch.some((m) => m.messageId === f.itemIdentifier))
        ? new Set(named.map((f) => f.itemIdentifier))
        : new Set(batch.map((m) => m.messageId));
    } catch {
      failed = new Set(batch.map((m) => m.messageId));
    }
    for (const message of batch) if (!failed.has(message.messageId)) this.queue.delete(message.receipt);
  }

  private record(message: StoredMessage): SQSRecord {
    return {
      messageId: message.messageId,
      receiptHandle: message.receipt ?? '',
      body: message.body,
      attributes: {
        ApproximateReceiveCount: String(message.receiveCount),
        SentTimestamp: String(message.sentAt),
        SenderId: 'local',
        ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? this.now()),
        ...(message.groupId !== undefined ? { MessageGroupId: message.groupId } : {}),
      },
      messageAttributes: {},
      md5OfBody: md5Hex(message.body),
      eventSource: 'aws:sqs',
      eventSourceARN: this.queue.arn,
      awsRegion: 'local',
    };
  }
}
