// Lambda's event source mapping for a DynamoDB stream, emulated over tools/local/change-stream.ts
// with the settings the stack deploys (lib/contract/deployment.ts STREAM_MAPPINGS), as AWS documents
// it (docs.aws.amazon.com/lambda/latest/dg/with-ddb.html, services-ddb-params.html,
// services-dynamodb-errors.html, services-ddb-batchfailurereporting.html):
// - each shard is read in order, one batch in flight at a time; Lambda "polls shards ... at a base
//   rate of 4 times per second", so a record is read up to a poll later than it arrived;
// - a batch goes once it holds batchSize records, or the batching window after its first record;
// - a batch that fails is sent again whole (at least once: records it already handled come again),
//   or split in two when bisecting, which uses up no retry; a partial failure (ReportBatchItemFailures)
//   checkpoints before the lowest sequence number it names and sends the rest again; a response
//   naming no record of the batch fails it whole;
// - after retryAttempts retries, or past maxRecordAgeSeconds, the records are discarded and the
//   on-failure destination gets a description of the batch (DDBStreamBatchInfo), never its records.
// Batches are sent by deliverDue() when their time has come on the stack's clock (a virtual one in
// tests, which move it and then deliver), or on real timers with `autoDeliver` (npm start).
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamMapping } from '../../lib/contract/deployment';
import type { ChangeStream, ShardRecord } from './change-stream';
import { dueTimerIf, type DueTimer } from './due-timer';

/** "Lambda polls shards in your DynamoDB stream for records at a base rate of 4 times per second." */
export const POLL_INTERVAL_MS = 250;

export type StreamHandler = (
  event: DynamoDBStreamEvent,
  context: Context,
) => Promise<DynamoDBBatchResponse | void | undefined>;

/** What the on-failure destination receives for a discarded batch: its description, not its records. */
export interface DiscardedBatch {
  condition: 'RetryAttemptsExhausted' | 'RecordAgeExceeded';
  approximateInvokeCount: number;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string;
    approximateArrivalOfLastRecord: string;
    batchSize: number;
    streamArn: string;
  };
}

export interface StreamMappingOptions {
  settings: StreamMapping;
  handler: StreamHandler;
  /** Each invocation's Lambda context. */
  context: () => Context;
  now?: () => number;
  /** Send batches on real timers as they come due (npm start); otherwise only deliverDue() sends. */
  autoDeliver?: boolean;
}

interface Shard {
  id: number;
  /** Records not yet handled, in order. */
  records: ShardRecord[];
  /** The batch being retried, over the first records: its size, its retries, its invocations. */
  retrying: { size: number; retries: number; invocations: number }[];
  /** No invocation before this (a retry waits for the next poll). */
  notBefore: number;
}

export class EventSourceMapping {
  private readonly shards = new Map<number, Shard>();
  private readonly now: () => number;
  /** Delivery runs one pass at a time, so each shard has one batch in flight. */
  private delivering: Promise<void> = Promise.resolve();
  /** With autoDeliver, the real timer for the next batch (the stack's clock is then the machine's). */
  private readonly timer: DueTimer | undefined;
  /** What the on-failure destination (the deployed SQS dead-letter queue) has received. */
  readonly discarded: DiscardedBatch[] = [];
  /** Invocations made, failed ones included. */
  invocations = 0;

  constructor(
    stream: ChangeStream,
    tableName: string,
    private readonly options: StreamMappingOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.timer = dueTimerIf(options.autoDeliver, this.now, this);
    stream.subscribe(tableName, (record) => {
      const shard = this.shardOf(record.shard);
      shard.records.push(record);
      this.timer?.schedule();
    });
  }

  /** When the next batch may go, on the stack's clock; undefined when nothing waits. */
  nextDueAt(): number | undefined {
    let earliest: number | undefined;
    for (const shard of this.shards.values()) {
      const due = this.dueAt(shard);
      if (due !== undefined) earliest = Math.min(earliest ?? due, due);
    }
    return earliest;
  }

  /** Sends every batch whose time has come, each shard's in order, until none is due now. */
  deliverDue(): Promise<void> {
    const pass = this.delivering.then(async () => {
      for (let sent = true; sent;) {
        sent = false;
        for (const shard of this.shards.values()) {
          const due = this.dueAt(shard);
          if (due === undefined || due > this.now()) continue;
          await this.invoke(shard);
          sent = true;
        }
      }
    });
    this.delivering = pass.catch(() => undefined);
    return pass;
  }

  /** Stops the timers; records still waiting stay unread, as in a disabled mapping. */
  close(): void {
    this.timer?.close();
  }

  private shardOf(id: number): Shard {
    let shard = this.shards.get(id);
    if (shard === undefined) {
      shard = { id, records: [], retrying: [], notBefore: -Infinity };
      this.shards.set(id, shard);
    }
    return shard;
  }

  private dueAt(shard: Shard): number | undefined {
    const [first] = shard.records;
    if (first === undefined) return undefined;
    if (shard.retrying.length > 0) return shard.notBefore;
    const { batchSize, batchingWindowSeconds } = this.options.settings;
    const readable = (record: ShardRecord) => record.arrivedAt + POLL_INTERVAL_MS;
    const full = shard.records[batchSize - 1];
    const due = full ? readable(full) : readable(first) + batchingWindowSeconds * 1000;
    return Math.max(due, shard.notBefore);
  }

  private async invoke(shard: Shard): Promise<void> {
    this.discardTooOld(shard);
    if (shard.records.length === 0) return;
    const now = this.now();
    const retry = shard.retrying[0];
    const size = retry?.size ?? Math.min(this.options.settings.batchSize, readableCount(shard, now));
    if (size === 0) return;
    const batch = shard.records.slice(0, size);
    this.invocations++;
    const invocations = (retry?.invocations ?? 0) + 1;
    let handled: number;
    try {
      const response = await this.options.handler({ Records: batch.map((r) => r.record) }, this.options.context());
      handled = this.handledBefore(batch, response);
    } catch {
      handled = -1;
    }
    if (handled === batch.length) {
      shard.records.splice(0, size);
      shard.retrying.shift();
      return;
    }
    shard.notBefore = this.now() + POLL_INTERVAL_MS;
    const retries = retry?.retries ?? 0;
    const { bisectOnError } = this.options.settings;
    if (handled > 0) {
      // A partial failure: the records before the one named are done; the rest go again.
      shard.records.splice(0, handled);
      return this.retryOrDiscard(shard, { size: size - handled, retries: retries + 1, invocations });
    }
    if (handled < 0 && bisectOnError && size > 1) {
      const half = Math.ceil(size / 2);
      shard.retrying.splice(
        0,
        retry ? 1 : 0,
        { size: half, retries, invocations },
        { size: size - half, retries, invocations },
      );
      return;
    }
    this.retryOrDiscard(shard, { size, retries: retries + 1, invocations });
  }

  /** How many of the batch's first records the response says were handled: all, some, or none (-1: it failed). */
  private handledBefore(batch: readonly ShardRecord[], response: DynamoDBBatchResponse | void | undefined): number {
    const failures = response?.batchItemFailures ?? [];
    if (!this.options.settings.reportBatchItemFailures || failures.length === 0) return batch.length;
    const positions = failures.map((failure) =>
      batch.findIndex((r) => failure.itemIdentifier && r.record.dynamodb?.SequenceNumber === failure.itemIdentifier),
    );
    // An identifier that names no record of the batch fails it whole.
    return positions.some((at) => at < 0) ? -1 : Math.min(...positions);
  }

  private retryOrDiscard(shard: Shard, batch: { size: number; retries: number; invocations: number }): void {
    if (batch.retries <= this.options.settings.retryAttempts) {
      shard.retrying.splice(0, 1, batch);
      return;
    }
    shard.retrying.shift();
    this.discard(shard, shard.records.splice(0, batch.size), 'RetryAttemptsExhausted', batch.invocations);
  }

  private discardTooOld(shard: Shard): void {
    const oldest = this.now() - this.options.settings.maxRecordAgeSeconds * 1000;
    let old = 0;
    while (old < shard.records.length && (shard.records[old]?.arrivedAt ?? Infinity) < oldest) old++;
    if (old === 0) return;
    // A batch being retried loses its records that expired.
    const retry = shard.retrying[0];
    if (retry) {
      retry.size -= Math.min(old, retry.size);
      if (retry.size === 0) shard.retrying.shift();
    }
    this.discard(shard, shard.records.splice(0, old), 'RecordAgeExceeded', retry?.invocations ?? 0);
  }

  private discard(
    shard: Shard,
    records: ShardRecord[],
    condition: DiscardedBatch['condition'],
    invocations: number,
  ): void {
    const [first] = records;
    const last = records.at(-1);
    if (first === undefined || last === undefined) return;
    this.discarded.push({
      condition,
      approximateInvokeCount: invocations,
      DDBStreamBatchInfo: {
        shardId: `shardId-${String(shard.id).padStart(20, '0')}`,
        startSequenceNumber: first.record.dynamodb?.SequenceNumber ?? '',
        endSequenceNumber: last.record.dynamodb?.SequenceNumber ?? '',
        approximateArrivalOfFirstRecord: new Date(first.arrivedAt).toISOString(),
        approximateArrivalOfLastRecord: new Date(last.arrivedAt).toISOString(),
        batchSize: records.length,
        streamArn: first.record.eventSourceARN ?? '',
      },
    });
  }
}

/** The shard's records read by `now` (a poll after each arrived), in order. */
function readableCount(shard: Shard, now: number): number {
  let count = 0;
  while (count < shard.records.length && (shard.records[count]?.arrivedAt ?? Infinity) + POLL_INTERVAL_MS <= now)
    count++;
  return count;
}
