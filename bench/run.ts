// `npm run bench [-- --quick] [--suite <name>]... [--orders <n>]... [--merge] [--sync-1m] [--docs] [--help]`: runs each suite
// below in turn and prints the figures as one Markdown table (bench/report.ts). A full run of every
// suite writes bench/results.json, which the listOrders settings declared in lib/contract/deployment.ts
// are checked against, and rewrites the figures in the docs from it; `--merge` puts the figures of
// the suites named into the file instead, beside the others' and saying when they ran. `--docs`
// only rewrites the docs from the file.

import './support/env';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LIST_SETTINGS, listSettings } from '../infra/list-budget';
import { LISTING_SUITE, measuredFigures } from '../infra/measured';
import { startEmbeddedDynamo } from '../tools/local/embedded-dynamo';
import { report, RESULTS_FILE, writeDocs, type BenchResults, type SuiteRun } from './report';
import { benchUsage, BenchUsageError, parseCommandLine } from './args';
import { mergeSuites } from './merge';
import { adminImport } from './suites/admin-import';
import { handlerOverhead } from './suites/handler-overhead';
import { listing } from './suites/listing';
import { listingRefusal } from './suites/listing-refusal';
import { load } from './suites/load';
import { moduleInit } from './suites/module-init';
import { sync } from './suites/sync';
import { syncWatch } from './suites/sync-watch';
import { webhookDelivery } from './suites/webhook-delivery';

/** Adding a suite: a file in bench/suites/, an entry here, its key in BenchResults and its rows in report.ts. */
const SUITES = [
  moduleInit,
  handlerOverhead,
  listing,
  listingRefusal,
  load,
  adminImport,
  sync,
  syncWatch,
  webhookDelivery,
];

async function main(): Promise<void> {
  const values = parseCommandLine(process.argv.slice(2), process.env);
  if (values.help) return console.log(benchUsage(SUITES.map((s) => s.name)));
  if (values.docs) return writeDocs(readResults());
  const [quick, names, syncMillion] = [values.quick ?? false, values.suite, values['sync-1m'] ?? false];
  if (names?.some((name) => !SUITES.some((s) => s.name === name)))
    throw new BenchUsageError(`--suite takes one of ${SUITES.map((s) => `'${s.name}'`).join(', ')}`);
  if (values.merge && (quick || !names))
    throw new BenchUsageError("--merge takes the full figures of the suites named: add --suite '<name>', drop --quick");
  // Listing sizes of one's own: a narrow run while working on the listing, printed only.
  const orders = values.orders?.map(Number);
  if (orders && (values.merge || !names?.includes(LISTING_SUITE) || orders.some((n) => !Number.isInteger(n) || n < 1)))
    throw new BenchUsageError(`--orders takes whole numbers of orders for --suite '${LISTING_SUITE}', without --merge`);
  // MEASURED names the full run's date and machine as the source of the listing's figures.
  if (values.merge && names?.includes(LISTING_SUITE))
    throw new BenchUsageError(`'${LISTING_SUITE}' feeds MEASURED, so it is never merged: run the full bench`);
  const suites = SUITES.filter((s) => !names || names.includes(s.name));
  const [started, loadAtStart] = [new Date(), os.loadavg()[0]];
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'store-orders-bench-'));
  const dynamo = await startEmbeddedDynamo({ port: 0 });
  const log = (text: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  const figures: Record<string, unknown> = {};
  try {
    for (const suite of suites) {
      log(suite.name);
      figures[suite.name] = await suite.run({ quick, syncMillion, orders, endpoint: dynamo.endpoint, outDir, log });
    }
  } finally {
    await dynamo.close();
    rmSync(outDir, { recursive: true, force: true });
  }
  const [cpu] = os.cpus();
  const run: SuiteRun = {
    startedAt: started.toISOString(),
    durationS: Math.round((Date.now() - started.getTime()) / 1000),
    machine: {
      cpus: os.availableParallelism(),
      cpu: cpu?.model.trim() ?? 'unknown',
      memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      os: `${os.type()} ${os.release()} ${os.arch()}`,
    },
    // Other work on a shared machine moves every timing.
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    ...(syncMillion ? { options: ['--sync-1m'] } : {}),
  };
  const { options: _, ...measured } = run;
  const results: BenchResults = { mode: quick ? 'quick' : 'full', ...measured, suites: figures };
  console.log(report(results));
  if (values.merge) {
    writeResults(mergeSuites(readResults(), results.suites, run));
    return console.log(`\nMerged into bench/results.json (${suites.map((s) => s.name).join(', ')}); docs rewritten.`);
  }
  if (quick || orders || suites.length < SUITES.length)
    return console.log('\nbench/results.json and the docs left unchanged.');
  writeResults(results);
  console.log('\nWritten to bench/results.json; docs/benchmarks.md and docs/design.md rewritten from it.');
  // list-orders' settings are declared in the contract, not computed at synthesis: say when these figures move them.
  const derived = listSettings(measuredFigures(results));
  if (derived.memoryMb !== LIST_SETTINGS.memoryMb || derived.timeoutSeconds !== LIST_SETTINGS.timeoutSeconds) {
    console.log(
      `These figures give list-orders ${derived.memoryMb} MB and ${derived.timeoutSeconds} s; lib/contract/deployment.ts declares ${LIST_SETTINGS.memoryMb} MB and ${LIST_SETTINGS.timeoutSeconds} s: change the declaration (test/unit/list-budget.spec.ts fails until then).`,
    );
  }
}

const readResults = () => JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults;

/** bench/results.json, numbers to six significant digits, and the docs' blocks rewritten from it. */
function writeResults(results: BenchResults): void {
  const round = (_: string, v: unknown) =>
    typeof v === 'number' && !Number.isInteger(v) ? Number(v.toPrecision(6)) : v;
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, round, 2)}\n`);
  writeDocs(results);
}

main().catch((error: unknown) => {
  if (error instanceof BenchUsageError) {
    console.error(`npm run bench: ${error.message} (npm run bench -- --help lists the options)`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
