// listOrders at scale: bytes on the wire plain and compressed, the handler's orders per CPU second,
// first byte and peak memory, the streaming client against JSON.parse of the whole body, and the
// deployed ceiling these figures give (infra/list-budget.ts). Orders with varied fields, so the
// compressed sizes are those of real data, not of repeated fixtures, served to the handler's Scan
// in DynamoDB's wire format by bench/support/scan-server.ts (seeding a million would take an hour).

import { readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { createLocalApp } from '../../tools/local/app';
import {
  ceiling,
  LIST_SETTINGS,
  listSettings,
  STREAMING_LIMITS,
  type CodingFigures,
  type ListFigures,
} from '../../infra/list-budget';
import { BASE_PATH } from '../../lib/contract/routes';
import { bundle } from '../support/bundle';
import { deployedLaunch, launchFlags, runChildOrThrow, type ChildLaunch } from '../support/child';
import { childEnv, lambdaEnv } from '../support/env';
import { seededTables, variedOrders } from '../support/fixtures';
import { startScanServer } from '../support/scan-server';
import type { ScaleRun, ScaleVariant } from '../support/list-scale-child';
import { n, pct } from '../support/stats';
import type { Row, Suite } from '../support/suite';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'list-scale-child.ts');
const CODINGS = ['identity', 'gzip', 'br'] as const;
type Coding = (typeof CODINGS)[number];
/** As deployed, and (when list-orders adds node flags) gzip without them, to show what they buy. */
const DEPLOYED = deployedLaunch('list-orders');
const CASES: readonly { coding: Coding; deployed: boolean }[] = [
  ...CODINGS.map((coding) => ({ coding, deployed: true })),
  ...(DEPLOYED.wrapperFlags ? [{ coding: 'gzip' as const, deployed: false }] : []),
];
const launch = (c: { deployed: boolean }): ChildLaunch => (c.deployed ? DEPLOYED : { nodeFlags: DEPLOYED.nodeFlags });
const caseName = (c: { coding: Coding; deployed: boolean }) =>
  `${c.coding}, ${c.deployed ? `as deployed (${launchFlags(DEPLOYED)})` : `Lambda's heap without ${DEPLOYED.wrapperFlags?.join(' ')}`}`;
const MiB = 1024 * 1024;

/** The orders in a handler's output: their count and the sum of their ids, whatever the order. */
function checkOutput(file: string, coding: Coding): { orders: number; idSum: bigint; json: boolean } {
  const raw = readFileSync(file);
  const text = (coding === 'gzip' ? gunzipSync(raw) : coding === 'br' ? brotliDecompressSync(raw) : raw).toString(
    'utf8',
  );
  let orders = 0;
  let idSum = 0n;
  for (const match of text.matchAll(/"id":(-?\d+)/g)) {
    orders++;
    idSum += BigInt(match[1] ?? '0');
  }
  return { orders, idSum, json: text.startsWith('[') && text.endsWith(']') };
}

interface HandlerFigures extends ScaleRun {
  size: number;
  coding: Coding;
  deployed: boolean;
  valid: boolean;
  bytesPerOrder: number;
  ordersPerCpuSecond: number;
}

export const listScale: Suite = {
  name: 'listOrders at scale',
  async run({ quick, endpoint, outDir, log }) {
    const sizes = quick ? [2_000, 20_000] : [20_000, 200_000, 1_000_000];
    const file = await bundle(CHILD, outDir, 'list-scale-child');
    const handlers: HandlerFigures[] = [];
    const clients: (ScaleRun & { size: number; variant: ScaleVariant })[] = [];
    const rows: Row[] = [];
    for (const size of sizes) {
      const tables = await seededTables(endpoint, 0, log);
      const scans = await startScanServer({
        upstream: endpoint,
        table: tables.names.orders,
        count: size,
        orders: variedOrders,
      });
      const expected = variedOrders(size).reduce((sum, o) => sum + BigInt(o.id), 0n);
      const env = childEnv({ ...lambdaEnv(tables.names, scans.endpoint), BENCH_CALLER: JSON.stringify(tables.caller) });
      for (const c of CASES) {
        const { coding, deployed } = c;
        const out = path.join(outDir, `list-${size}.${coding}`);
        const run = await runChildOrThrow<ScaleRun>(file, ['handler', coding, out], env, launch(c));
        if (process.env.BENCH_DEBUG) log(JSON.stringify(run));
        const check = checkOutput(out, coding);
        rmSync(out);
        const valid = run.status === 200 && check.json && check.orders === size && check.idSum === expected;
        handlers.push({
          ...run,
          size,
          coding,
          deployed,
          valid,
          orders: check.orders,
          bytesPerOrder: run.bytes / size,
          ordersPerCpuSecond: size / (run.cpuMs / 1000),
        });
        log(`  ${n(size)} orders, ${caseName(c)}: ${n(run.totalMs)} ms`);
      }
      const app = createLocalApp({ endpoint: scans.endpoint, tables: tables.names });
      await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${BASE_PATH}`;
      try {
        for (const variant of ['client-stream', 'client-json'] as const) {
          const run = await runChildOrThrow<ScaleRun>(
            file,
            [variant],
            childEnv({ BENCH_URL: url, BENCH_KEY: tables.key }),
          );
          clients.push({ ...run, size, variant });
          log(`  ${n(size)} orders, ${variant}: ${n(run.totalMs)} ms`);
        }
      } finally {
        app.server.closeAllConnections();
        await new Promise<void>((resolve) => app.server.close(() => resolve()));
        await scans.close();
        await tables.drop();
      }
    }

    for (const h of handlers) {
      const plain = handlers.find((p) => p.size === h.size && p.coding === 'identity' && p.deployed);
      rows.push([
        'listOrders at scale',
        `${n(h.size)} orders, ${caseName(h)}${h.valid ? '' : ', INVALID OUTPUT'}`,
        `${n(h.bytes / MiB, 1)} MB on the wire (${n(h.bytesPerOrder, 1)} B an order), ${n(h.ordersPerCpuSecond)} orders per CPU second, first byte ${n(h.ttfbMs)} ms of ${n(h.totalMs)} ms (${n((h.ttfbMs / h.totalMs) * 100, 1)}%), peak rss ${n(h.peakRssMB, 1)} MB`,
        plain && h.coding !== 'identity' ? `identity ×${n(plain.bytes / h.bytes, 2)} the bytes` : '',
      ]);
    }
    for (const size of sizes) {
      const stream = clients.find((c) => c.size === size && c.variant === 'client-stream');
      const json = clients.find((c) => c.size === size && c.variant === 'client-json');
      if (!stream || !json) continue;
      rows.push([
        'streaming client',
        `${n(size)} orders (gzip)${stream.orders === size && json.orders === size ? '' : ', INVALID OUTPUT'}`,
        `listOrdersStream: peak rss ${n(stream.peakRssMB, 1)} MB (+${n(stream.peakRssAboveBaselineMB, 1)}), ${n(stream.totalMs)} ms`,
        `JSON.parse of the whole body: peak rss ${n(json.peakRssMB, 1)} MB (+${n(json.peakRssAboveBaselineMB, 1)}), ${n(json.totalMs)} ms`,
      ]);
    }
    const first = sizes[0] as number;
    const last = sizes[sizes.length - 1] as number;
    for (const c of CASES) {
      const [a, b] = [first, last].map((size) =>
        handlers.find((h) => h.size === size && h.coding === c.coding && h.deployed === c.deployed),
      );
      if (a && b)
        rows.push([
          'listOrders memory growth',
          `handler, ${caseName(c)}, ${n(first)} → ${n(last)} orders`,
          `peak rss ${pct(a.peakRssMB, b.peakRssMB)}`,
          'aim within ±20%',
        ]);
    }
    for (const variant of ['client-stream', 'client-json'] as const) {
      const [a, b] = [first, last].map((size) => clients.find((c) => c.size === size && c.variant === variant));
      if (a && b)
        rows.push([
          'client memory growth',
          `${variant === 'client-stream' ? 'listOrdersStream' : 'JSON.parse'}, ${n(first)} → ${n(last)} orders`,
          `peak rss ${pct(a.peakRssMB, b.peakRssMB)}`,
          variant === 'client-stream' ? 'aim within ±20%' : 'grows with the body',
        ]);
    }
    const firstByte = handlers.find(
      (h) => h.coding === 'gzip' && h.deployed && h.size === (sizes.includes(200_000) ? 200_000 : last),
    );
    if (firstByte)
      rows.push([
        'first byte',
        `gzip, ${n(firstByte.size)} orders`,
        `${n(firstByte.ttfbMs)} ms of ${n(firstByte.totalMs)} ms: ${n((firstByte.ttfbMs / firstByte.totalMs) * 100, 1)}% of the total`,
        'aim below 25%',
      ]);

    // The deployed ceiling from this run's own figures at the largest size.
    const at = (coding: Coding): CodingFigures | undefined => {
      const h = handlers.find((x) => x.size === last && x.coding === coding && x.deployed);
      return h ? { bytesPerOrder: h.bytesPerOrder, ordersPerCpuSecond: h.ordersPerCpuSecond } : undefined;
    };
    const [plain, gzip, br] = [at('identity'), at('gzip'), at('br')];
    const limits = `${STREAMING_LIMITS.fullSpeedBytes / MiB} MB at full speed, then ${STREAMING_LIMITS.cappedBytesPerSecond / MiB} MB/s; ${STREAMING_LIMITS.maxResponseBytes / MiB} MB a response; ${STREAMING_LIMITS.maxIntegrationSeconds / 60} min a stream; 1 vCPU at ${n(STREAMING_LIMITS.memoryMbPerVcpu)} MB`;
    let derived: ReturnType<typeof listSettings> | undefined;
    if (plain && gzip) {
      const figures: ListFigures = { plain, compressed: gzip, source: 'this run' };
      derived = listSettings(figures);
      for (const [coding, f] of [
        ['identity', plain],
        ['gzip', gzip],
        ['br', br],
      ] as const) {
        if (!f) continue;
        const c = ceiling(f, LIST_SETTINGS.memoryMb, LIST_SETTINGS.timeoutSeconds);
        rows.push([
          'deployed ceiling',
          `${coding}, at ${n(LIST_SETTINGS.memoryMb)} MB and ${LIST_SETTINGS.timeoutSeconds} s (deployed)`,
          `${n(c.orders)} orders in one response (limited by ${c.limitedBy}; ${n(c.bytes / MiB)} MB in ${n(c.seconds)} s)`,
          limits,
        ]);
      }
      rows.push([
        'deployed settings',
        'list-orders',
        `from this run's figures: ${n(derived.memoryMb)} MB, ${derived.timeoutSeconds} s`,
        `deployed (infra/list-budget.ts MEASURED): ${n(LIST_SETTINGS.memoryMb)} MB, ${LIST_SETTINGS.timeoutSeconds} s`,
      ]);
    }
    return { rows, figures: { handlers, clients, derived, deployed: LIST_SETTINGS, limits: STREAMING_LIMITS } };
  },
};
