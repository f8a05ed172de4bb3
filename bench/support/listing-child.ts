// What the listing children (list-child.ts, list-scale-child.ts) share: their arguments, peak
// memory sampling, and one listing by the deployed list-orders entry, streamed into a callback as
// API Gateway would forward it.

import { installLocalLambdaRuntime, LocalResponseStream } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import type { Caller } from '../../lib/keys/context';
import { proxyEvent } from './fixtures';

export { childArgs } from './child-args';

export const MB = 1024 * 1024;

/** The highest RSS and heap seen; `beforeEach` runs before every sample (a full collection, say). */
export function peakSampler(beforeEach?: () => void): { peak: { rss: number; heap: number }; sample: () => void } {
  const peak = { rss: 0, heap: 0 };
  return {
    peak,
    sample() {
      beforeEach?.();
      const { rss, heapUsed } = process.memoryUsage();
      peak.rss = Math.max(peak.rss, rss);
      peak.heap = Math.max(peak.heap, heapUsed);
    },
  };
}

export type ListHandler = (typeof import('../../functions/list-orders'))['handler'];

/** The deployed entry, with the runtime's `awslambda` global it streams through installed first. */
export async function loadListHandler(): Promise<ListHandler> {
  installLocalLambdaRuntime();
  return (await import('../../functions/list-orders')).handler;
}

/**
 * One GET /store/orders by the bench caller (BENCH_CALLER), with this Accept-Encoding if any;
 * every chunk goes to `take` as it is written. Resolves to the status once the stream finished.
 */
export async function listThroughHandler(
  handler: ListHandler,
  take: (chunk: Buffer) => void,
  acceptEncoding?: string,
): Promise<number> {
  const caller = JSON.parse(process.env.BENCH_CALLER ?? '{}') as Caller;
  let status = 0;
  const stream = new LocalResponseStream({
    head: (prelude) => (status = prelude.statusCode ?? 200),
    write: (chunk, done) => {
      take(chunk);
      done();
    },
    end: () => undefined,
  });
  const finished = new Promise((resolve, reject) => stream.once('finish', resolve).once('error', reject));
  const event = proxyEvent('GET', '/store/orders', caller);
  if (acceptEncoding !== undefined) event.headers = { 'Accept-Encoding': acceptEncoding };
  await handler(event, stream, lambdaContext('list-orders'));
  await finished;
  return status;
}

/** Runs a child's main; any failure is printed and exits 1, for the parent to report. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
