// `npm run bench [-- --quick] [--suite <name>]...`: runs each suite below in turn, prints one
// Markdown table and, when every suite ran, writes bench/results.json. README.md (Benchmarks) says
// what the figures mean.

import './support/env';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startEmbeddedDynamo } from '../tools/local/embedded-dynamo';
import { adminImport } from './suites/admin-import';
import { handlerOverhead } from './suites/handler-overhead';
import { limiterCosts } from './suites/limiter-costs';
import { listMemory } from './suites/list-memory';
import { listingRefusal } from './suites/listing-refusal';
import { listScale } from './suites/list-scale';
import { load } from './suites/load';
import { moduleInit } from './suites/module-init';
import type { Row, Suite } from './support/suite';

/** Adding a suite: one file in bench/suites/ that exports a `Suite`, and one entry here. */
const SUITES: readonly Suite[] = [
  moduleInit,
  handlerOverhead,
  limiterCosts,
  listingRefusal,
  listMemory,
  listScale,
  load,
  adminImport,
];

const RESULTS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results.json');

const machine = () => ({
  cpus: os.availableParallelism(),
  cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
  memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
  node: process.version,
  os: `${os.type()} ${os.release()} ${os.arch()}`,
});

function markdown(rows: readonly Row[]): string {
  const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  return [
    line(['Figure', 'Subject', 'Measured', 'Against']),
    line(['---', '---', '---', '---']),
    ...rows.map(line),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { quick: { type: 'boolean', default: false }, suite: { type: 'string', multiple: true } },
  });
  const quick = values.quick ?? false;
  // `--suite <name>` (repeatable) runs only the suites named; a name that matches none is an error.
  const unknown = (values.suite ?? []).filter((name) => !SUITES.some((s) => s.name === name));
  if (unknown.length)
    throw new Error(`No suite named ${unknown.join(', ')}; the suites are: ${SUITES.map((s) => s.name).join(', ')}`);
  const selected = values.suite ? SUITES.filter((s) => values.suite?.includes(s.name)) : SUITES;
  const started = Date.now();
  const loadAtStart = os.loadavg()[0];
  const log = (text: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${text}\n`);
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'store-orders-bench-'));
  const dynamo = await startEmbeddedDynamo({ port: 0 });
  const rows: Row[] = [];
  const suites: Record<string, unknown> = {};
  try {
    for (const suite of selected) {
      log(suite.name);
      const result = await suite.run({ quick, endpoint: dynamo.endpoint, outDir, log });
      rows.push(...result.rows);
      suites[suite.name] = result.figures;
    }
  } finally {
    await dynamo.close();
    rmSync(outDir, { recursive: true, force: true });
  }
  const durationS = Math.round((Date.now() - started) / 1000);
  const results = {
    mode: quick ? 'quick' : 'full',
    startedAt: new Date(started).toISOString(),
    durationS,
    machine: machine(),
    // Other work on a shared machine moves every timing.
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] },
    suites,
  };
  // A partial run would leave the other suites' figures out of the file.
  if (selected === SUITES) writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  const m = results.machine;
  console.log(markdown(rows));
  console.log(
    `\n${results.mode} run in ${durationS} s on ${m.cpus} CPUs (${m.cpu}), ${m.memoryGiB} GiB, node ${m.node}; load average ${loadAtStart?.toFixed(2)} → ${results.loadAverage.end?.toFixed(2)}.${selected === SUITES ? ' Written to bench/results.json.' : ''}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
