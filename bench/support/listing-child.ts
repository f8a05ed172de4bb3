// One listing by the deployed list-orders entry in a fresh process (bundled and started by
// bench/suites/listing.ts), so its CPU time and memory peak are its own: `<coding> <file>` streams
// the listing with that Accept-Encoding into <file>, for the suite to check. Prints one JSON line.

import { childArgs } from './env';
import { once } from 'node:events';
import { closeSync, openSync, writeSync } from 'node:fs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { documentClientFromEnv } from '../../lib/stores/dynamo';
import { TABLES } from '../../lib/contract/tables';
import type { Caller } from '../../lib/core/access/caller';
import { invokeStreamed } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import { proxyEvent } from './fixtures';
import { peakRssMB } from './peak-rss';

export interface ListingRun {
  status: number;
  /** Bytes on the wire. */
  bytes: number;
  ttfbMs: number;
  totalMs: number;
  /** CPU time of the whole process (zlib compresses on libuv's thread pool). */
  cpuMs: number;
  /**
   * The process's own peak resident set (VmHWM: bench/support/peak-rss.ts says why not ru_maxrss),
   * what Lambda reports as memory used: read once at the end, where sampling it every few ms cost a
   * quarter of a fast listing's CPU.
   */
  peakRssMB: number;
}

const [coding = 'identity', outFile = ''] = childArgs();
let firstByteAt = 0;

async function main(): Promise<void> {
  // Module init (list-orders streamifies its handler as it loads) and the SDK's first call are not timed.
  installLocalLambdaRuntime();
  const { handler } = await import('../../functions/list-orders');
  await documentClientFromEnv().send(new ScanCommand({ TableName: process.env[TABLES.orders.envVar], Limit: 1 }));
  const event = proxyEvent(JSON.parse(process.env.BENCH_CALLER ?? '{}') as Caller);
  if (coding !== 'identity') event.headers = { 'Accept-Encoding': coding };
  const [fd, out] = [openSync(outFile, 'w'), { status: 0, bytes: 0 }];
  const [cpu, started] = [process.cpuUsage(), performance.now()];
  const { stream, done } = invokeStreamed(handler, event, lambdaContext('list-orders'), {
    head: (status) => (out.status = status),
    write: async (chunk) => {
      firstByteAt ||= performance.now();
      out.bytes += writeSync(fd, chunk);
    },
    end: () => undefined,
  });
  await Promise.all([done, once(stream, 'finish')]);
  const [used, ended] = [process.cpuUsage(cpu), performance.now()];
  closeSync(fd);
  const run: ListingRun = {
    ...out,
    ttfbMs: (firstByteAt || ended) - started,
    totalMs: ended - started,
    cpuMs: (used.user + used.system) / 1000,
    peakRssMB: peakRssMB(),
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
