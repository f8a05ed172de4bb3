import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createDocumentClient, createDynamoClient } from '../lib/aws/dynamo';
import { OrdersRepository } from '../lib/orders/repository';
import { childEnv, lambdaEnv } from './bench-env';
import { freshTables, seedOrders, unlimitedKey } from './fixtures';
import { bundleLikeLambda } from './lambda-bundle';
import type { ListRun, ListVariant } from './list-child';
import { median } from './stats';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/**
 * A V8 old-space cap far below what buffering the largest table needs: with default flags V8
 * lets garbage pile up while it has room, so a peak alone cannot tell garbage from retained data.
 */
export const HEAP_CAP_MB = 48;

export type MemoryMode = 'default heap' | 'capped heap' | 'live heap';

export interface ListCase {
  variant: ListVariant;
  /**
   * `default heap`: V8 as it comes; `capped heap`: old space capped at HEAP_CAP_MB;
   * `live heap`: a full collection before every sample (see bench/list-child.ts).
   */
  mode: MemoryMode;
}

const MODES: readonly MemoryMode[] = ['default heap', 'capped heap', 'live heap'];
const CASES: readonly ListCase[] = MODES.flatMap((mode) => [
  { variant: 'handler' as const, mode },
  { variant: 'plain scan' as const, mode },
]);

export interface ListFigures extends ListCase {
  size: number;
  runs: number;
  /** Set when a run could not finish, e.g. `heap out of memory` under the cap. */
  failed?: string;
  ttfbMs: number;
  firstOrderMs: number;
  totalMs: number;
  peakRssMB: number;
  peakHeapMB: number;
  bytes: number;
  /** Every order exactly once, and byte for byte the same JSON as every other run of this size. */
  valid: boolean;
}

type Outcome = ListRun | { failed: string };

function runChild(file: string, c: ListCase, env: Record<string, string>): Promise<Outcome> {
  const flags = ['--expose-gc', ...(c.mode === 'capped heap' ? [`--max-old-space-size=${HEAP_CAP_MB}`] : [])];
  return new Promise((resolve, reject) => {
    // Asynchronous on purpose: the embedded server the child reads from runs in this process.
    const child = spawn(process.execPath, [...flags, file, c.variant, c.mode === 'live heap' ? 'live' : 'sampled'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(out) as ListRun);
      else if (/heap out of memory/i.test(err)) resolve({ failed: 'heap out of memory' });
      else reject(new Error(`list child (${c.variant}) exited ${code}: ${err.slice(0, 800)}`));
    });
  });
}

function summarise(size: number, c: ListCase, outcomes: Outcome[], valid: boolean): ListFigures {
  const runs = outcomes.filter((o): o is ListRun => !('failed' in o));
  const failure = outcomes.find((o): o is { failed: string } => 'failed' in o);
  return {
    ...c,
    size,
    runs: outcomes.length,
    ...(failure ? { failed: failure.failed } : {}),
    ttfbMs: median(runs.map((r) => r.ttfbMs)),
    firstOrderMs: median(runs.map((r) => r.firstOrderMs)),
    totalMs: median(runs.map((r) => r.totalMs)),
    peakRssMB: median(runs.map((r) => r.peakRssMB)),
    peakHeapMB: median(runs.map((r) => r.peakHeapMB)),
    bytes: runs[0]?.bytes ?? 0,
    valid,
  };
}

/**
 * For each size: fresh tables on the server at `endpoint`, seeded once, then the deployed
 * list-orders entry and a plain buffered Scan loop, each run in its own process, in rotating order.
 */
export async function measureListOrders(endpoint: string, sizes: readonly number[], repeatsFor: (size: number) => number, outDir: string): Promise<ListFigures[]> {
  const { file } = await bundleLikeLambda(path.join(HERE, 'list-child.ts'), outDir, 'list-child');
  const client = createDynamoClient({ endpoint });
  const doc = createDocumentClient(client);
  const out: ListFigures[] = [];
  for (const size of sizes) {
    const tables = await freshTables(client, `list${size}`);
    const seedStarted = performance.now();
    await seedOrders(new OrdersRepository(doc, tables.orders), size, `${size} orders`);
    process.stderr.write(`  seeded ${size} orders in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s\n`);
    const { context } = await unlimitedKey(doc, tables);
    const env = childEnv({ ...lambdaEnv(tables, endpoint), BENCH_CALLER: JSON.stringify(context) });
    const outcomes = CASES.map((): Outcome[] => []);
    for (let r = 0; r < repeatsFor(size); r++) {
      for (let k = 0; k < CASES.length; k++) {
        const index = (k + r) % CASES.length;
        outcomes[index]?.push(await runChild(file, CASES[index] as ListCase, env));
      }
    }
    const finished = outcomes.flat().filter((o): o is ListRun => !('failed' in o));
    const valid = finished.every((o) => o.status === 200 && o.orders === size && o.sha256 === finished[0]?.sha256);
    const figures = CASES.map((c, i) => summarise(size, c, outcomes[i] ?? [], valid));
    out.push(...figures);
    const h = figures[0];
    process.stderr.write(`  listed ${size}: handler ${h?.totalMs.toFixed(0)} ms, peak rss +${h?.peakRssMB.toFixed(1)} MB, valid ${valid}\n`);
  }
  client.destroy();
  return out;
}
