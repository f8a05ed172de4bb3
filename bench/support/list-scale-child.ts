// One listing at scale in a fresh process (bundled and run by bench/suites/list-scale.ts), so its
// CPU time and memory peak are its own. `handler <coding> <file>`: the deployed entry with that
// Accept-Encoding, its output written to <file> for the suite to check. `client-stream` and
// `client-json`: the typed client's listOrdersStream(), or fetch then JSON.parse of the whole body,
// from the local stack at BENCH_URL. Prints one JSON line.

import { closeSync, openSync, writeSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { StoreOrdersClient } from '../../client/client';
import { documentClientFromEnv } from '../../lib/aws/dynamo';
import {
  childArgs,
  listThroughHandler,
  loadListHandler,
  MB,
  peakSampler,
  runMain,
  type ListHandler,
} from './listing-child';

export type ScaleVariant = 'handler' | 'client-stream' | 'client-json';

export interface ScaleRun {
  status: number;
  /** Bytes the handler wrote (on the wire), or orders the client got. */
  bytes: number;
  orders: number;
  ttfbMs: number;
  totalMs: number;
  /** CPU time of this process (all threads: zlib compresses on libuv's pool). */
  cpuMs: number;
  /** Peak resident set size of the whole process, and above its baseline. */
  peakRssMB: number;
  peakRssAboveBaselineMB: number;
  peakHeapMB: number;
}

const [variant, coding, outFile] = childArgs() as [ScaleVariant, string, string];
const { peak, sample } = peakSampler();

async function handlerRun(handler: ListHandler): Promise<{ status: number; bytes: number; firstByteAt: number }> {
  const fd = openSync(outFile, 'w');
  let bytes = 0;
  let firstByteAt = 0;
  const status = await listThroughHandler(
    handler,
    (chunk) => {
      firstByteAt ||= performance.now();
      bytes += chunk.length;
      writeSync(fd, chunk);
      sample();
    },
    coding === 'identity' ? undefined : coding,
  );
  closeSync(fd);
  return { status, bytes, firstByteAt };
}

async function clientRun(): Promise<{ status: number; orders: number; firstByteAt: number }> {
  const baseUrl = process.env.BENCH_URL ?? '';
  const apiKey = process.env.BENCH_KEY ?? '';
  let orders = 0;
  let firstByteAt = 0;
  if (variant === 'client-stream') {
    for await (const _order of new StoreOrdersClient({ baseUrl, apiKey }).listOrdersStream()) {
      firstByteAt ||= performance.now();
      if (++orders % 1_000 === 0) sample();
    }
    return { status: 200, orders, firstByteAt };
  }
  const response = await fetch(`${baseUrl}/store/orders`, {
    headers: { Authorization: `Bearer ${apiKey}`, 'Accept-Encoding': 'gzip' },
  });
  const text = await response.text();
  firstByteAt = performance.now();
  sample();
  const parsed = JSON.parse(text) as unknown[];
  sample();
  return { status: response.status, orders: parsed.length, firstByteAt };
}

async function main(): Promise<void> {
  // Module init and the client's first call belong to the baseline, not to the listing.
  const handler = variant === 'handler' ? await loadListHandler() : undefined;
  if (handler)
    await documentClientFromEnv().send(new ScanCommand({ TableName: process.env.ORDERS_TABLE ?? '', Limit: 1 }));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const baseline = process.memoryUsage().rss;
  const timer = setInterval(sample, 2);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = handler ? { ...(await handlerRun(handler)), orders: 0 } : { ...(await clientRun()), bytes: 0 };
  const ended = performance.now();
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  sample();
  const run: ScaleRun = {
    status: result.status,
    bytes: result.bytes,
    orders: result.orders,
    ttfbMs: (result.firstByteAt || ended) - started,
    totalMs: ended - started,
    cpuMs: (used.user + used.system) / 1000,
    peakRssMB: peak.rss / MB,
    peakRssAboveBaselineMB: (peak.rss - baseline) / MB,
    peakHeapMB: peak.heap / MB,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

runMain(main);
