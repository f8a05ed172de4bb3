import { bundleExtras } from './table';
import { HEAP_CAP_MB } from './list-orders';
import { AIMS, type BenchResults } from './results';

/** The short notes printed under the table: what each figure means where it is not obvious. */
export function buildNotes(r: BenchResults, stackCrash: string | undefined): string[] {
  const m = r.machine;
  const trips = r.roundTrips.filter((t) => t.scenario.startsWith('cancel'));
  const extraRead = trips.some((t) => t.server === 'dynalite' && t.path.includes('GetItem'));
  const notes = [
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.memoryGiB} GiB, node ${m.node}, ${m.kernel}; 1-min load average ${m.loadAverageAtStart.toFixed(2)} at start, ${r.loadAverageAtEnd.toFixed(2)} at end (other work on the machine skews timings).`,
    'Bundles: built as infra/constructs/service-function.ts does (esbuild, minified ESM, node22, SDK bundled, createRequire banner); module init = median time of `await import(bundle)` in a fresh node, rounds interleaved; `bare` = DynamoDB document client + middy core only.',
    ...bundleExtras(r),
    `Handler overhead: in process against the embedded server in the same process, ${r.handlerOverhead.iterations} interleaved calls each, each on its own pending order. The bare call makes only the conditional UpdateItem; cancelOrder also makes the limiter's two UpdateItems (in parallel), so the ×${AIMS.handlerRatio} aim is met or missed on "vs bare UpdateItem + limiter", which isolates middy, the logger and error mapping. That stack's own CPU, with the repository and limiter stubbed, is ${r.handlerOverhead.stackOnlyUs.toFixed(0)} µs a call; what the I/O rows differ by beyond that is run-to-run noise of the in-process server.`,
    'Round trips: commands counted by a middleware on the document client; "‖" = in flight together, "→" = waits for the previous wave.' +
      (extraRead
        ? ' dynalite returns no item with a failed condition, so the repository reads it back (one more GetItem); [DynamoDB] rows replay the cancels with the item returned as DynamoDB does: a 404 still costs that GetItem, because a missing item returns nothing.'
        : ''),
    'listOrders: each variant in its own node process (the bundled deployed entry, or a plain Scan loop that buffers every order and writes the same JSON once), output discarded into a byte counter; peaks are above the process baseline taken after a gc and one warm-up Scan, sampled every 2 ms and at every chunk. Both variants produce byte-identical JSON (sha256) with every order exactly once.',
  ];
  for (const g of r.listMemoryGrowth) {
    const how = g.mode === 'capped heap' ? `with V8's old space capped at ${HEAP_CAP_MB} MB` : g.mode === 'live heap' ? 'counting live memory only (gc before each sample)' : "with V8's default heap";
    notes.push(`Claim "peak memory grows by less than ${AIMS.memoryGrowth * 100}% from 20k to 200k orders", ${how} (${g.from} → ${g.to}): ${g.holds ? 'holds' : 'does NOT hold'} (rss ${(g.rss * 100).toFixed(1)}%, heap ${(g.heap * 100).toFixed(1)}%).`);
  }
  const live = (variant: string, at: 'first' | 'last') => {
    const rows = r.listOrders.filter((f) => f.mode === 'live heap' && f.variant === variant && !f.failed && f.size >= 20_000);
    return at === 'first' ? rows[0] : rows[rows.length - 1];
  };
  const [h0, h1, p0, p1] = [live('handler', 'first'), live('handler', 'last'), live('plain scan', 'first'), live('plain scan', 'last')];
  if (h0 && h1 && p0 && p1 && h1.size > h0.size) {
    notes.push(
      `Live heap from ${h0.size} to ${h1.size} orders: handler ${h0.peakHeapMB.toFixed(1)} → ${h1.peakHeapMB.toFixed(1)} MB (+${(h1.peakHeapMB - h0.peakHeapMB).toFixed(1)} MB), plain scan ${p0.peakHeapMB.toFixed(1)} → ${p1.peakHeapMB.toFixed(1)} MB: the handler does not hold the table, though the 20% bound is relative to a small base.`,
    );
  }
  notes.push(
    'Memory modes: with room to spare V8 postpones full collections, so default-heap peaks also count garbage, which grows with the length of the scan. Capped heap: the same run with the old space capped; a plain scan that fails there ran out of heap holding the whole table. Live heap: a full collection before each sample, taken at every chunk (handler) or page (plain scan): what the run keeps alive.',
  );
  notes.push('Load: the local stack (gateway, handlers and embedded server in one process, as `npm start` runs it) in a child process, autocannon in this one, both on 127.0.0.1 and on the same CPUs; an enterprise key with the highest custom limits, so the limiter admits every request.');
  if (stackCrash) {
    notes.push(`The local stack process died when autocannon dropped its connections at the end of the GET run: ${stackCrash} (an unhandled 'error' on the response stream when a client goes away before the first byte).`);
  }
  return notes;
}
