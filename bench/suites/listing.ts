// listOrders at scale: the deployed entry on 20k, 200k and 1M orders with varied fields (real
// data's compression, not repeated fixtures'), served to its Scan by bench/support/scan-server.ts;
// each listing in a fresh process started as Lambda starts list-orders, its output decompressed and
// checked.

import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { bundle, deployedLaunch, launchArgs, runChild, type ChildLaunch } from '../support/child';
import { childEnv, lambdaEnv } from '../support/env';
import { seededTables, variedOrders } from '../support/fixtures';
import type { ListingRun } from '../support/listing-child';
import { startScanServer } from '../support/scan-server';
import type { TranscoderRun } from '../support/transcoder-child';
import type { Suite } from '../suite';

export interface HandlerListing extends Omit<ListingRun, 'status'> {
  orders: number;
  coding: string;
  /** Started as deployed; otherwise with the runtime's flags, without list-orders' own. */
  deployed: boolean;
  nodeFlags: string[];
  /** One JSON array holding every order exactly once (count and id sum checked). */
  valid: boolean;
}
export type ListingFigures = {
  handlers: HandlerListing[];
  /** The replies of the largest listing to its JSON alone, before the transcoder and with it, as deployed. */
  transcoder?: TranscoderRun & { nodeFlags: string[] };
};

const SUPPORT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support');
const CHILD = path.join(SUPPORT, 'listing-child.ts');
const TRANSCODER_CHILD = path.join(SUPPORT, 'transcoder-child.ts');
/** Replies the transcoder rows replay, the first of the largest listing's (1,000 orders each). */
const TRANSCODER_PAGES = 100;
const DEPLOYED = deployedLaunch('list-orders');
/** Each coding as deployed, and gzip without list-orders' own node flags, to show what they buy. */
const CASES: { coding: string; launch: ChildLaunch }[] = [
  ...['identity', 'gzip', 'br'].map((coding) => ({ coding, launch: DEPLOYED })),
  ...(DEPLOYED.wrapperFlags ? [{ coding: 'gzip', launch: { nodeFlags: DEPLOYED.nodeFlags } }] : []),
];

/** Whether a handler's output is one JSON array holding exactly these orders (their count and id sum). */
function holds(file: string, coding: string, orders: number, idSum: bigint): boolean {
  const raw = readFileSync(file);
  const text = (coding === 'gzip' ? gunzipSync(raw) : coding === 'br' ? brotliDecompressSync(raw) : raw).toString();
  rmSync(file);
  const ids = [...text.matchAll(/"id":(-?\d+)/g)].map((match) => BigInt(match[1] ?? '0'));
  return (
    text.startsWith('[') && text.endsWith(']') && ids.length === orders && ids.reduce((a, b) => a + b, 0n) === idSum
  );
}

export const listing: Suite<ListingFigures> = {
  name: 'listOrders at scale',
  async run({ quick, orders: sizes, endpoint, outDir, log }) {
    const file = await bundle(CHILD, outDir, 'listing-child');
    const figures: ListingFigures = { handlers: [] };
    for (const orders of sizes ?? (quick ? [2_000, 20_000] : [20_000, 200_000, 1_000_000])) {
      const tables = await seededTables(endpoint, 0);
      const scans = await startScanServer(endpoint, tables.names.orders, orders);
      const idSum = variedOrders(orders).reduce((sum, o) => sum + BigInt(o.id), 0n);
      const env = { ...lambdaEnv(tables.names, scans.endpoint), BENCH_CALLER: JSON.stringify(tables.caller) };
      for (const { coding, launch } of CASES) {
        const out = path.join(outDir, `listing.${coding}`);
        const { status, ...run } = await runChild<ListingRun>(file, [coding, out], env, launch);
        const [deployed, nodeFlags] = [launch === DEPLOYED, launchArgs(launch)];
        const valid = status === 200 && holds(out, coding, orders, idSum);
        figures.handlers.push({ orders, coding, deployed, nodeFlags, valid, ...run });
        log(`  ${orders} orders, ${coding}${deployed ? '' : ' without its flags'}: ${Math.round(run.totalMs)} ms`);
      }
      await scans.close();
      await tables.drop();
    }
    const largest = Math.max(...figures.handlers.map((h) => h.orders));
    const transcoderFile = await bundle(TRANSCODER_CHILD, outDir, 'transcoder-child');
    const run = await runChild<TranscoderRun>(
      transcoderFile,
      [String(largest), String(TRANSCODER_PAGES)],
      childEnv({}),
      DEPLOYED,
    );
    figures.transcoder = { ...run, nodeFlags: launchArgs(DEPLOYED) };
    log(`  transcoder alone, ${run.orders} orders: ${Math.round(run.transcoder.cpuMs)} ms of CPU a round`);
    return figures;
  },
};
