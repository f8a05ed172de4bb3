// bench/results.json as Markdown: the figures table `npm run bench` prints, and the blocks of
// docs/benchmarks.md (that table) and docs/design.md (listOrders' capacity) it rewrites, so every
// figure the docs show is read from the one file. test/unit/bench-docs.spec.ts checks they agree.

import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../infra/functions';
import { budgetTable, listSettings } from '../infra/list-budget';
import { memoryTable, PRICES } from '../infra/listing-cost';
import { measuredFigures, type MeasuredRun } from '../infra/measured';
import type { AdminImportFigures } from './suites/admin-import';
import type { HandlerOverheadFigures } from './suites/handler-overhead';
import type { ListingFigures } from './suites/listing';
import type { TranscoderRun, TranscoderSide } from './support/transcoder-child';
import type { ListingRefusalFigures } from './suites/listing-refusal';
import type { LoadFigures } from './suites/load';
import type { ReadFigures, SyncFigures } from './suites/sync';
import type { ModuleInitFigures } from './suites/module-init';
import type { SyncWatchFigures, WatchedBatches } from './suites/sync-watch';
import { monthlyReadCost, watchCostPerMillion } from './sync-cost';
import type { WebhookDeliveryFigures } from './suites/webhook-delivery';
import { webhookCostPerMillion } from '../infra/webhook-cost';

/** When and where a run measured, and with which options beyond the defaults. */
export interface SuiteRun {
  startedAt: string;
  durationS: number;
  machine: { cpus: number; cpu: string; memoryGiB: number; node: string; os: string };
  loadAverage: { start?: number; end?: number };
  options?: string[];
}

/** bench/results.json: one run's figures, by suite name. */
export interface BenchResults extends MeasuredRun {
  durationS: number;
  machine: SuiteRun['machine'];
  loadAverage: SuiteRun['loadAverage'];
  /** Suites whose figures a later run merged in (`--merge`), with that run: the rest are the full run's. */
  suiteRuns?: Record<string, SuiteRun>;
  suites: {
    'module init'?: ModuleInitFigures;
    'handler overhead'?: HandlerOverheadFigures;
    'listOrders at scale'?: ListingFigures;
    'listing refusal'?: ListingRefusalFigures;
    'local stack load'?: LoadFigures;
    'admin orders import'?: AdminImportFigures;
    'sync versus listing'?: SyncFigures;
    'sync watch'?: SyncWatchFigures;
    'webhook delivery'?: WebhookDeliveryFigures;
  };
}

/** A number for the table: thousands separated, fixed decimals. */
const n = (value: number, digits = 0): string =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const times = (to: number, from: number) => `×${n(to / from, 2)}`;
const change = (from: number, to: number): string => `${to >= from ? '+' : ''}${n((to / from - 1) * 100, 1)}%`;

/** One table row each: figure, subject, measured, against. */
const moduleInitRows = ({ runs, functions }: ModuleInitFigures) =>
  functions.map(
    (m) =>
      `| module init, as deployed | ${m.name} (${n(m.bundleKB, 1)} kB) | ${n(m.wallMs, 1)} ms wall, ${n(m.cpuMs, 1)} ms CPU (median of ${runs}) | bare ${n(m.bare.wallMs, 1)} ms wall (${times(m.wallMs, m.bare.wallMs)}), ${n(m.bare.cpuMs, 1)} ms CPU (${times(m.cpuMs, m.bare.cpuMs)}); aim ≤ ×1.15 |`,
  );

const handlerOverheadRows = ({ medianUs: us }: HandlerOverheadFigures) => [
  `| handler overhead | cancelOrder handler | ${n(us.handler)} µs | ${times(us.handler, us['limiter + repository'])} limiter + repository (${n(us['limiter + repository'])} µs; aim ≤ ×1.10), ${times(us.handler, us.repository)} repository alone (${n(us.repository)} µs; aim ≤ ×2.2) |`,
];

/** A side of the transcoder rows: orders per CPU second, and the bytes read and written per CPU second. */
function transcoderText(run: TranscoderRun, side: TranscoderSide): string {
  const seconds = side.cpuMs / 1000;
  return `${n(run.orders / seconds)} orders per CPU second, ${n(run.inBytes / MiB / seconds, 1)} MiB/s in, ${n(side.outBytes / MiB / seconds, 1)} MiB/s out`;
}

const MiB = 1024 * 1024;

function transcoderRows(run: TranscoderRun | undefined): string[] {
  if (!run) return [];
  return [
    `| listing transcoder, as deployed | Scan replies to the listing's JSON, in process: ${n(run.orders)} orders in ${n(run.pages)} replies (${n(run.inBytes / MiB, 1)} MiB in, ${n(run.transcoder.outBytes / MiB, 1)} MiB out), median of ${run.rounds} rounds | transcoder: ${transcoderText(run, run.transcoder)} | before (the SDK's parse, an Order, orderJson): ${transcoderText(run, run.before)}; ${times(run.before.cpuMs, run.transcoder.cpuMs)} the CPU |`,
  ];
}

function listingRows({ handlers, transcoder }: ListingFigures): string[] {
  return [...handlerRows(handlers), ...transcoderRows(transcoder)];
}

function handlerRows(handlers: ListingFigures['handlers']): string[] {
  const deployedFlags = handlers.find((h) => h.deployed)?.nodeFlags ?? [];
  const first = Math.min(...handlers.map((h) => h.orders));
  return handlers.map((h) => {
    const from = handlers.find((x) => x.orders === first && x.coding === h.coding && x.deployed === h.deployed);
    const how = h.deployed
      ? 'as deployed'
      : `without ${deployedFlags.filter((f) => !h.nodeFlags.includes(f)).join(' ')}`;
    const growth =
      from && h !== from ? `peak RSS ${change(from.peakRssMB, h.peakRssMB)} from ${n(first)} orders (aim ±20%)` : '';
    return `| listOrders | ${n(h.orders)} orders, ${h.coding}, ${how}${h.valid ? '' : ', INVALID OUTPUT'} | ${n(h.bytes / h.orders, 1)} B an order, ${n(h.orders / (h.cpuMs / 1000))} orders per CPU second, first byte at ${n((h.ttfbMs / h.totalMs) * 100, 1)}% of ${n(h.totalMs)} ms, peak RSS ${n(h.peakRssMB, 1)} MB | ${growth} |`;
  });
}

const refusalRows = ({ storeOrders, refused, served }: ListingRefusalFigures) =>
  `| listing refusal | identity, store reported at ${n(storeOrders)} orders: ${refused.statusCode}; gzip: ${served.statusCode} | ${refused.calls.filter((c) => c === 'Scan').length} Scans before the ${refused.statusCode} (calls: ${refused.calls.join(', ') || 'none'}); ${served.calls.filter((c) => c === 'Scan').length} in gzip | must be 0 |`;

const loadRows = ({ routes, connections, durationS }: LoadFigures) =>
  routes.map((r) => {
    const statuses = Object.entries(r.statuses).map(([status, count]) => `${status}×${count}`);
    return `| local stack load | ${r.route}, ${connections} connections × ${durationS} s | ${n(r.requestsPerS)} req/s, p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms | ${statuses.join(' ') || 'no responses'}; ${r.errors} errors, ${r.timeouts} timeouts |`;
  });

const importRows = (f: AdminImportFigures) => [
  `| admin orders import | ${n(f.count)} new orders, ${f.concurrency} conditional puts in flight | ${n(f.ms / 1000, 1)} s (${n(f.perSecond)} orders/s) | aim: 100,000 well under a minute |`,
];

const readText = (r: ReadFigures) =>
  `${n(r.itemsRead)} items read, ${n(r.bytes / 1024, 1)} KiB, ${n(r.ms)} ms in ${n(r.requests)} request${r.requests === 1 ? '' : 's'}`;

const syncRows = ({ stores }: SyncFigures) =>
  stores.map(
    (s) =>
      `| v2 sync versus v1 listing | ${n(s.changed)} changed of ${n(s.orders)} orders (grown by ${n(s.seeded.orders)} at ${n(s.seeded.orders / (s.seeded.ms / 1000))} orders/s) | sync (v2, uncompressed): ${readText(s.sync)}${s.syncGzip ? `; gzip: ${n(s.syncGzip.bytes / 1024, 1)} KiB` : ''} | listing (v1, gzip): ${readText(s.listing)}; ${times(s.listing.itemsRead, Math.max(1, s.sync.itemsRead))} the items read, ${times(s.listing.bytes, Math.max(1, s.sync.bytes))} the bytes${s.syncGzip ? `, ${times(s.listing.bytes, Math.max(1, s.syncGzip.bytes))} the sync's gzip bytes` : ''} |`,
  );

const usd = (value: number) => `$${n(value, value < 100 ? 2 : 0)}`;
const costText = (r: ReadFigures) => {
  const c = monthlyReadCost(r);
  return `${usd(c.egress + c.dynamoReads)} (egress ${usd(c.egress)}, DynamoDB reads ${usd(c.dynamoReads)})`;
};

/** The largest store's two reads, priced as a month of them at list prices (bench/sync-cost.ts). */
function syncCostRow({ stores }: SyncFigures): string[] {
  const s = stores.at(-1);
  if (!s) return [];
  const { reads } = monthlyReadCost(s.sync);
  return [
    `| v2 sync versus v1 listing, priced | ${n(reads / 1e6, 1)} M reads a month of the ${n(s.orders)}-order store (${PRICES.region} list prices of ${PRICES.asOf}) | sync: ${costText(s.sync)} | listing: ${costText(s.listing)} |`,
  ];
}

const watchedText = (b: WatchedBatches) =>
  `${n(b.cpuMsPerBatch, 2)} ms CPU, ${n(b.wallMsPerBatch, 2)} ms wall a batch (${n(b.batches)} batches, ${n(b.restamped)} re-stamped)`;

/** The sync watch's batches, and what a million changes cost through it (bench/sync-cost.ts). */
function syncWatchRows(f: SyncWatchFigures): string[] {
  const onTime = watchCostPerMillion(f);
  const late = watchCostPerMillion(f, 1);
  const usd2 = (v: number) => (v === 0 ? '$0' : `$${v.toPrecision(2)}`);
  const cost = (c: ReturnType<typeof watchCostPerMillion>) =>
    `${usd2(c.total)} per million changes (Lambda requests ${usd2(c.requests)}, ${f.memoryMb} MB GB-s ${usd2(c.compute)}, stream reads ${usd2(c.streamReads)}, re-stamp writes ${usd2(c.restampWrites)})`;
  return [
    `| sync watch | ${n(f.onTime.changes)} changes on time, ${f.batchSize} a batch | ${watchedText(f.onTime)} | ${cost(onTime)} |`,
    `| sync watch | ${n(f.late.changes)} changes landed late, each re-stamped | ${watchedText(f.late)} | ${cost(late)} |`,
  ];
}

/** Each webhook consumer's batches and events a second, and a million events priced (infra/webhook-cost.ts). */
function webhookRows(f: WebhookDeliveryFigures): string[] {
  const cost = webhookCostPerMillion(f);
  const usd3 = (v: number) => `$${v.toFixed(3)}`;
  const row = (name: string, c: WebhookDeliveryFigures['fanout'], what: string) =>
    `| webhook ${name} | ${n(c.items)} ${what}, ${c.batchSize} a batch, ${f.endpoints} endpoints a change | ${n(c.eventsPerSecond)} events a second (${n(c.cpuMsPerBatch, 2)} ms CPU, ${n(c.wallMsPerBatch, 2)} ms wall a batch) |`;
  return [
    `${row('fan-out', f.fanout, 'changes')} queued through the SDK to the local queue over SQS's protocol |`,
    `${row('delivery', f.worker, 'deliveries')} read, claimed, signed, POSTed to a loopback receiver, acknowledged, logged: ${usd3(cost.total)} per million events (fan-out ${usd3(cost.fanout)}, SQS ${usd3(cost.queue)}, worker ${usd3(cost.worker)}, DynamoDB ${usd3(cost.dynamo)}, egress ${usd3(cost.egress)}) |`,
  ];
}

const runText = (r: SuiteRun) =>
  `${r.startedAt.slice(0, 10)}, ${r.durationS} s on ${r.machine.cpus} CPUs (${r.machine.cpu}), ${r.machine.memoryGiB} GiB, Node.js ${r.machine.node}, ${r.machine.os}; load average ${r.loadAverage.start?.toFixed(2)} → ${r.loadAverage.end?.toFixed(2)}`;

/** The run as one Markdown table, under a line that says when, where and under what load it ran. */
export function report(results: BenchResults): string {
  const { suites } = results;
  return [
    `${results.mode === 'full' ? 'Full' : 'Quick'} run of ${runText(results)}.`,
    ...Object.entries(results.suiteRuns ?? {}).map(
      ([name, run]) =>
        `Then ${name} alone${run.options ? ` (${run.options.join(' ')})` : ''}, merged in: run of ${runText(run)}.`,
    ),
    '',
    '| Figure | Subject | Measured | Against |',
    '| --- | --- | --- | --- |',
    ...(suites['module init'] ? moduleInitRows(suites['module init']) : []),
    ...(suites['handler overhead'] ? handlerOverheadRows(suites['handler overhead']) : []),
    ...(suites['listOrders at scale'] ? listingRows(suites['listOrders at scale']) : []),
    ...(suites['listing refusal'] ? [refusalRows(suites['listing refusal'])] : []),
    ...(suites['local stack load'] ? loadRows(suites['local stack load']) : []),
    ...(suites['admin orders import'] ? importRows(suites['admin orders import']) : []),
    ...(suites['sync versus listing'] ? syncRows(suites['sync versus listing']) : []),
    ...(suites['sync versus listing'] ? syncCostRow(suites['sync versus listing']) : []),
    ...(suites['sync watch'] ? syncWatchRows(suites['sync watch']) : []),
    ...(suites['webhook delivery'] ? webhookRows(suites['webhook delivery']) : []),
  ].join('\n');
}

export const RESULTS_FILE = path.join(REPO_ROOT, 'bench', 'results.json');

/** The docs' generated blocks: each between `<!-- bench:<name> -->` and `<!-- /bench:<name> -->`. */
export const DOC_BLOCKS: readonly { file: string; name: string; render: (results: BenchResults) => string }[] = [
  { file: 'docs/benchmarks.md', name: 'figures', render: report },
  {
    file: 'docs/design.md',
    name: 'capacity',
    render: (r) => budgetTable(measuredFigures(r), listSettings(measuredFigures(r))),
  },
  { file: 'docs/design.md', name: 'memory', render: (r) => memoryTable(measuredFigures(r)) },
];

const block = (name: string) => new RegExp(`(?<=<!-- bench:${name} -->\n)[^]*?(?=<!-- /bench:${name} -->)`);

/** The content of a generated block in `text`, up to its last newline; throws when its markers are missing. */
export function blockOf(text: string, name: string): string {
  const found = block(name).exec(text)?.[0];
  if (found === undefined) throw new Error(`No <!-- bench:${name} --> ... <!-- /bench:${name} --> block`);
  return found;
}

/** Rewrites every generated block of the docs from `results`. */
export function writeDocs(results: BenchResults): void {
  for (const { file, name, render } of DOC_BLOCKS) {
    const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
    blockOf(text, name);
    writeFileSync(
      path.join(REPO_ROOT, file),
      text.replace(block(name), () => `${render(results)}\n`),
    );
  }
}
