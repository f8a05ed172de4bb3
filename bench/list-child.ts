// One listing in a fresh process (bundled and run by bench/list-orders.ts with --expose-gc), so
// its memory peak is its own. Prints one JSON line: bytes, checks, timings, peaks above baseline.

import { createHash } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { Writable } from 'node:stream';
import { documentClientFromEnv } from '../lib/aws/dynamo';
import { orderJson, type Order } from '../lib/orders/order';
import { orderFromItem } from '../lib/orders/repository';
import type { AuthorizerContext } from '../lib/keys/context';
import { installLocalLambdaRuntime, LocalResponseStream } from '../infra/local/lambda-streaming';
import { lambdaContext } from '../infra/local/proxy-event';
import { proxyEvent } from './fixtures';

export type ListVariant = 'handler' | 'plain scan';

export interface ListRun {
  variant: ListVariant;
  status: number;
  bytes: number;
  orders: number;
  sha256: string;
  ttfbMs: number;
  /** When the first order arrived: a first byte can be just the `[` that opens the array. */
  firstOrderMs: number;
  totalMs: number;
  peakRssMB: number;
  peakHeapMB: number;
  baselineRssMB: number;
  baselineHeapMB: number;
}

const MB = 1024 * 1024;
const OPEN_BRACE = 0x7b;

/** Discards what it is given as API Gateway forwards it, keeping only what the checks need. */
class CountingSink {
  bytes = 0;
  orders = 0;
  firstByteAt: number | undefined;
  firstOrderAt: number | undefined;
  private readonly hash = createHash('sha256');
  take(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.firstByteAt ??= performance.now();
    this.bytes += chunk.length;
    this.hash.update(chunk);
    // Orders are flat objects and no field holds a brace: one brace per order.
    for (let i = chunk.indexOf(OPEN_BRACE); i !== -1; i = chunk.indexOf(OPEN_BRACE, i + 1)) this.orders++;
    if (this.orders > 0) this.firstOrderAt ??= performance.now();
  }
  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * Peaks of rss and heapUsed. In `live` mode every sample follows a full collection and samples
 * are taken only at chunk and page boundaries: the peak is then what the run keeps alive, not the
 * garbage V8 has not collected yet.
 */
class PeakSampler {
  rss = 0;
  heap = 0;
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly gc: (() => void) | undefined) {}
  sample = (): void => {
    this.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    this.rss = Math.max(this.rss, rss);
    this.heap = Math.max(this.heap, heapUsed);
  };
  start(everyMs: number): void {
    if (!this.gc) this.timer = setInterval(this.sample, everyMs);
  }
  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }
}

async function plainScan(table: string, sink: CountingSink, sampler: PeakSampler): Promise<number> {
  const doc = documentClientFromEnv();
  const orders: Order[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) orders.push(orderFromItem(item));
    startKey = page.LastEvaluatedKey;
    sampler.sample();
  } while (startKey);
  const body = Buffer.from(`[${orders.map(orderJson).join(',')}]`);
  sampler.sample();
  sink.take(body);
  return 200;
}

async function streamedHandler(
  handler: (event: ReturnType<typeof proxyEvent>, stream: Writable, context: ReturnType<typeof lambdaContext>) => Promise<void>,
  caller: AuthorizerContext,
  sink: CountingSink,
  sampler: PeakSampler,
): Promise<number> {
  let status = 0;
  const stream = new LocalResponseStream({
    head: (prelude) => {
      status = prelude.statusCode ?? 200;
    },
    write: (chunk, done) => {
      sink.take(chunk);
      sampler.sample();
      done();
    },
    end: () => undefined,
  });
  const finished = new Promise<void>((resolve, reject) => stream.once('finish', resolve).once('error', reject));
  await handler(proxyEvent('GET', '/store/orders', caller), stream, lambdaContext('list-orders', 60_000));
  await finished;
  return status;
}

async function main(): Promise<void> {
  const variant = process.argv[2] as ListVariant;
  const live = process.argv[3] === 'live';
  const table = process.env.ORDERS_TABLE ?? '';
  const caller = JSON.parse(process.env.BENCH_CALLER ?? '{}') as AuthorizerContext;
  installLocalLambdaRuntime();
  // The deployed entry, loaded in both variants so their baselines hold the same modules.
  const { handler } = await import('../functions/list-orders');
  // The first call sets the client up; that belongs to the baseline, not to the listing.
  await documentClientFromEnv().send(new ScanCommand({ TableName: table, Limit: 1 }));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const baseline = process.memoryUsage();
  const sampler = new PeakSampler(live ? gc : undefined);
  const sink = new CountingSink();
  sampler.start(2);
  const started = performance.now();
  const status =
    variant === 'handler' ? await streamedHandler(handler, caller, sink, sampler) : await plainScan(table, sink, sampler);
  const ended = performance.now();
  sampler.stop();
  const run: ListRun = {
    variant,
    status,
    bytes: sink.bytes,
    orders: sink.orders,
    sha256: sink.digest(),
    ttfbMs: (sink.firstByteAt ?? ended) - started,
    firstOrderMs: (sink.firstOrderAt ?? ended) - started,
    totalMs: ended - started,
    peakRssMB: (sampler.rss - baseline.rss) / MB,
    peakHeapMB: (sampler.heap - baseline.heapUsed) / MB,
    baselineRssMB: baseline.rss / MB,
    baselineHeapMB: baseline.heapUsed / MB,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
