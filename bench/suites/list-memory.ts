// listOrders at growing table sizes: the deployed entry against a plain Scan loop that buffers
// every order, each listing in a fresh process (bench/support/list-child.ts) so its peak is its own.

import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../support/bundle';
import { deployedLaunch, launchFlags, runChild, type ChildLaunch } from '../support/child';
import { childEnv, lambdaEnv } from '../support/env';
import { seededTables } from '../support/fixtures';
import type { ListRun, ListVariant } from '../support/list-child';
import { median, n, pct } from '../support/stats';
import type { Row, Suite } from '../support/suite';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'list-child.ts');

/**
 * A V8 old-space cap far below what buffering the largest table needs: with default flags V8
 * lets garbage pile up while it has room, so a peak alone cannot tell garbage from retained data.
 */
const HEAP_CAP_MB = 48;

/** How each mode starts node, and its sampling; `live` runs a full collection before every sample. */
type Mode = 'as deployed' | 'old space capped' | 'live heap (gc before each sample)';
const DEPLOYED = deployedLaunch('list-orders');
const MODES: Record<Mode, { launch: ChildLaunch; live: boolean }> = {
  'as deployed': { launch: DEPLOYED, live: false },
  'old space capped': { launch: { nodeFlags: [`--max-old-space-size=${HEAP_CAP_MB}`] }, live: false },
  'live heap (gc before each sample)': { launch: {}, live: true },
};
const CASES = (Object.keys(MODES) as Mode[]).flatMap((mode) =>
  (['handler', 'plain scan'] as const).map((variant) => ({ mode, variant })),
);

const label = (mode: Mode) =>
  mode === 'as deployed'
    ? `as deployed (${launchFlags(DEPLOYED)})`
    : mode === 'old space capped'
      ? `old space capped at ${HEAP_CAP_MB} MB`
      : mode;

type Outcome = ListRun | { failed: string };

const runCase = (file: string, mode: Mode, variant: ListVariant, env: Record<string, string>): Promise<Outcome> =>
  runChild<ListRun>(file, [variant, MODES[mode].live ? 'live' : 'sampled'], env, MODES[mode].launch);

const summary = (runs: Outcome[]) => {
  const ok = runs.filter((r): r is ListRun => !('failed' in r));
  const failed = runs.find((r): r is { failed: string } => 'failed' in r)?.failed;
  const m = (pick: (r: ListRun) => number) => median(ok.map(pick));
  return {
    runs: runs.length,
    failed,
    totalMs: m((r) => r.totalMs),
    ttfbMs: m((r) => r.ttfbMs),
    firstOrderMs: m((r) => r.firstOrderMs),
    peakRssMB: m((r) => r.peakRssMB),
    peakHeapMB: m((r) => r.peakHeapMB),
    bytes: ok[0]?.bytes ?? 0,
  };
};
type Summary = ReturnType<typeof summary>;
const shown = (s: Summary) =>
  s.failed ??
  `total ${n(s.totalMs)} ms, first byte ${n(s.ttfbMs)} ms, first order ${n(s.firstOrderMs)} ms, peak +${n(s.peakRssMB, 1)} MB rss / +${n(s.peakHeapMB, 1)} MB heap`;

export const listMemory: Suite = {
  name: 'listOrders memory',
  async run({ quick, endpoint, outDir, log }) {
    const sizes = quick ? [1_000, 5_000, 20_000, 50_000] : [1_000, 10_000, 20_000, 100_000, 200_000];
    const file = await bundle(CHILD, outDir, 'list-child');
    const rows: Row[] = [];
    const figures = [];
    for (const size of sizes) {
      const tables = await seededTables(endpoint, size, log);
      const env = childEnv({ ...lambdaEnv(tables.names, endpoint), BENCH_CALLER: JSON.stringify(tables.caller) });
      const outcomes = CASES.map((): Outcome[] => []);
      const repeats = quick ? 1 : size <= 20_000 ? 3 : 2;
      for (let r = 0; r < repeats; r++) {
        for (let k = 0; k < CASES.length; k++) {
          const i = (k + r) % CASES.length;
          const c = CASES[i] as (typeof CASES)[number];
          outcomes[i]?.push(await runCase(file, c.mode, c.variant, env));
        }
      }
      await tables.drop();
      const finished = outcomes.flat().filter((o): o is ListRun => !('failed' in o));
      // Every order exactly once, and byte for byte the same JSON in every run.
      const valid = finished.every((o) => o.status === 200 && o.orders === size && o.sha256 === finished[0]?.sha256);
      const summaries = CASES.map((c, i) => ({ ...c, size, valid, ...summary(outcomes[i] ?? []) }));
      figures.push(...summaries);
      for (const h of summaries.filter((s) => s.variant === 'handler')) {
        const plain = summaries.find((s) => s.variant === 'plain scan' && s.mode === h.mode);
        const subject = `${n(size)} orders, ${label(h.mode)}${h.valid ? '' : ', INVALID OUTPUT'}`;
        rows.push(['listOrders', subject, `handler: ${shown(h)}`, `plain scan: ${plain ? shown(plain) : '-'}`]);
      }
      log(`  listed ${size} orders`);
    }
    // Peak growth of the handler from 20k orders (or the first size above) to the largest size.
    for (const mode of Object.keys(MODES) as Mode[]) {
      const handler = figures.filter((f) => f.variant === 'handler' && f.mode === mode && !f.failed);
      const from = handler.find((f) => f.size >= 20_000);
      const to = handler[handler.length - 1];
      if (!from || !to || to.size <= from.size) continue;
      rows.push([
        'listOrders memory growth',
        `handler, ${n(from.size)} → ${n(to.size)} orders, ${label(mode)}`,
        `rss ${pct(from.peakRssMB, to.peakRssMB)}, heap ${pct(from.peakHeapMB, to.peakHeapMB)}`,
        '',
      ]);
    }
    return { rows, figures };
  },
};
