// One listing in a fresh process (bundled and run by bench/suites/list-memory.ts with --expose-gc),
// so its memory peak is its own. Prints one JSON line: bytes, checks, timings, peaks above baseline.

import { createHash } from 'node:crypto';
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { documentClientFromEnv } from '../../lib/aws/dynamo';
import { orderJson, type Order } from '../../lib/orders/order';
import { orderFromAttributes } from '../../lib/orders/repository';
import { childArgs, listThroughHandler, loadListHandler, MB, peakSampler, runMain } from './listing-child';

export type ListVariant = 'handler' | 'plain scan';

export interface ListRun {
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
}

const OPEN_BRACE = 0x7b;
const [variant, sampling] = childArgs() as [ListVariant, string];
const table = process.env.ORDERS_TABLE ?? '';
const gc = (globalThis as { gc?: () => void }).gc;
// In `live` mode every sample follows a full collection and is taken only at chunk and page
// boundaries: the peak is then what the run keeps alive, not garbage V8 has not collected yet.
const live = sampling === 'live';

const { peak, sample } = peakSampler(live ? () => gc?.() : undefined);

/** Discards the output as API Gateway forwards it, keeping only what the checks need. */
const sink = { bytes: 0, orders: 0, firstByteAt: 0, firstOrderAt: 0, hash: createHash('sha256') };
function take(chunk: Buffer): void {
  if (chunk.length === 0) return;
  sink.firstByteAt ||= performance.now();
  sink.bytes += chunk.length;
  sink.hash.update(chunk);
  // Orders are flat objects and no field holds a brace: one brace per order.
  for (let i = chunk.indexOf(OPEN_BRACE); i !== -1; i = chunk.indexOf(OPEN_BRACE, i + 1)) sink.orders++;
  if (sink.orders > 0) sink.firstOrderAt ||= performance.now();
  sample();
}

/** Every order read into memory, then written as one body: what the streamed handler avoids. */
async function plainScan(): Promise<number> {
  const doc = documentClientFromEnv();
  const orders: Order[] = [];
  let startKey: Record<string, AttributeValue> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) orders.push(orderFromAttributes(item));
    startKey = page.LastEvaluatedKey;
    sample();
  } while (startKey);
  take(Buffer.from(`[${orders.map(orderJson).join(',')}]`));
  return 200;
}

async function main(): Promise<void> {
  // The deployed entry, loaded in both variants so their baselines hold the same modules.
  const handler = await loadListHandler();
  // The first call sets the client up; that belongs to the baseline, not to the listing.
  await documentClientFromEnv().send(new ScanCommand({ TableName: table, Limit: 1 }));
  gc?.();
  gc?.();
  const baseline = process.memoryUsage();
  const timer = live ? undefined : setInterval(sample, 2);
  const started = performance.now();
  const status = variant === 'handler' ? await listThroughHandler(handler, take) : await plainScan();
  const ended = performance.now();
  clearInterval(timer);
  sample();
  const run: ListRun = {
    status,
    bytes: sink.bytes,
    orders: sink.orders,
    sha256: sink.hash.digest('hex'),
    ttfbMs: (sink.firstByteAt || ended) - started,
    firstOrderMs: (sink.firstOrderAt || ended) - started,
    totalMs: ended - started,
    peakRssMB: (peak.rss - baseline.rss) / MB,
    peakHeapMB: (peak.heap - baseline.heapUsed) / MB,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

runMain(main);
