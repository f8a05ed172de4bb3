// `npm run bench [-- --quick]`: every figure in one run, side by side, then one table, the notes,
// and bench/results.json. --quick shrinks sizes and iterations for a check in about a minute.

import './bench-env';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedDynamo } from '../infra/local/embedded-dynamo';
import { buildBundles } from './bundles';
import { measureHandlerOverhead } from './handler-overhead';
import { measureListOrders } from './list-orders';
import { measureLoad } from './load';
import { describeMachine } from './machine';
import { measureModuleInit } from './module-init';
import { buildNotes } from './notes';
import { memoryGrowth, type BenchResults } from './results';
import { measureRoundTrips } from './round-trips';
import { renderTable } from './table';

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false } } });
const quick = values.quick ?? false;
const PLAN = quick
  ? { initRuns: 8, overheadIterations: 300, sizes: [1_000, 5_000, 20_000, 50_000], repeats: () => 1, loadSeconds: 3, cancelOrders: 5_000 }
  : {
      initRuns: 40,
      overheadIterations: 1_500,
      sizes: [1_000, 10_000, 20_000, 100_000, 200_000],
      repeats: (size: number) => (size <= 20_000 ? 3 : 2),
      loadSeconds: 10,
      cancelOrders: 20_000,
    };
const LOAD_CONNECTIONS = 10;
const HERE = path.dirname(fileURLToPath(import.meta.url));

const step = (text: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);

async function main(): Promise<void> {
  const started = Date.now();
  const machine = describeMachine();
  const outDir = mkdtempSync(path.join(tmpdir(), 'store-orders-bench-'));
  try {
    step('bundling the functions as the CDK construct does');
    const bundles = await buildBundles(outDir);
    step(`module init: ${PLAN.initRuns} fresh processes per bundle`);
    // Also as deployed: the construct sets NODE_OPTIONS=--enable-source-maps on every function.
    const moduleInit = [...measureModuleInit(bundles, PLAN.initRuns), ...measureModuleInit(bundles, PLAN.initRuns, ['--enable-source-maps'])];

    const dynamo = await startEmbeddedDynamo({ port: 0 });
    step('DynamoDB round trips per route');
    const roundTrips = await measureRoundTrips(dynamo.endpoint);
    step(`handler overhead: ${PLAN.overheadIterations} calls per variant`);
    const handlerOverhead = await measureHandlerOverhead(dynamo.endpoint, PLAN.overheadIterations);
    step(`listOrders at ${PLAN.sizes.join(', ')} orders`);
    const listOrders = await measureListOrders(dynamo.endpoint, PLAN.sizes, PLAN.repeats, outDir);
    await dynamo.close();

    step(`local stack under autocannon: ${LOAD_CONNECTIONS} connections, ${PLAN.loadSeconds} s per route`);
    const load = await measureLoad(LOAD_CONNECTIONS, PLAN.loadSeconds, PLAN.cancelOrders);

    const results: BenchResults = {
      mode: quick ? 'quick' : 'full',
      startedAt: new Date(started).toISOString(),
      durationS: Math.round((Date.now() - started) / 1000),
      machine,
      loadAverageAtEnd: loadavg()[0] ?? Number.NaN,
      bundles: bundles.map(({ file: _file, ...figures }) => figures),
      moduleInit,
      handlerOverhead,
      roundTrips,
      listOrders,
      listMemoryGrowth: memoryGrowth(listOrders),
      load: load.routes,
      notes: [],
    };
    results.notes = buildNotes(results, load.stackCrash);
    writeFileSync(path.join(HERE, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    console.log(renderTable(results));
    console.log('');
    for (const note of results.notes) console.log(`- ${note}`);
    console.log(`\n${results.mode} run in ${results.durationS} s; written to bench/results.json`);
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
