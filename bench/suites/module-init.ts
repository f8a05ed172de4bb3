// Cold start: each function bundled as deployed, imported in a fresh node process, against a bare
// bundle of only the DynamoDB document client and middy core.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FUNCTIONS, functionEntry, type FunctionId } from '../../infra/functions';
import { tableNamesWithPrefix } from '../../infra/local/create-tables';
import { bundle, DEPLOYED_NODE_FLAGS } from '../support/bundle';
import { childEnv, lambdaEnv } from '../support/env';
import { median, n, rotations } from '../support/stats';
import type { Row, Suite } from '../support/suite';

const BARE_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'bare-entry.ts');

/**
 * Runs in a fresh node: the runtime's `awslambda` global first (list-orders streamifies its
 * handler while loading), then the bundle's import timed from start to the end of its top level.
 */
const IMPORT_TIMER = [
  'globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };',
  'const started = performance.now();',
  'const cpu = process.cpuUsage();',
  'await import(process.argv[1]);',
  'const used = process.cpuUsage(cpu);',
  'process.stdout.write(JSON.stringify([performance.now() - started, (used.user + used.system) / 1000]));',
].join('\n');

type Sample = [wallMs: number, cpuMs: number];

function timeImport(file: string, env: Record<string, string>, flags: readonly string[]): Sample {
  const run = spawnSync(process.execPath, [...flags, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`Importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout) as Sample;
}

export const moduleInit: Suite = {
  name: 'module init',
  async run({ quick, outDir }) {
    const runs = quick ? 8 : 40;
    // As deployed, a function's node also gets the V8 flags it declares (through the wrapper).
    const bundles: { name: string; file: string; nodeFlags: readonly string[] }[] = [];
    for (const id of Object.keys(FUNCTIONS) as FunctionId[]) bundles.push({ name: id, file: await bundle(functionEntry(id), outDir, id), nodeFlags: FUNCTIONS[id].nodeFlags ?? [] });
    bundles.push({ name: 'bare', file: await bundle(BARE_ENTRY, outDir, 'bare'), nodeFlags: [] });
    // No endpoint: module init makes no DynamoDB call.
    const env = childEnv(lambdaEnv(tableNamesWithPrefix('bench-init')));
    const rows: Row[] = [];
    const figures = [];
    for (const deployed of [false, true]) {
      const flagsOf = (b: (typeof bundles)[number]) => (deployed ? [...DEPLOYED_NODE_FLAGS, ...b.nodeFlags] : []);
      const samples = new Map<string, Sample[]>(bundles.map((b) => [b.name, []]));
      for (const b of bundles) timeImport(b.file, env, flagsOf(b)); // warms the OS file cache
      for (let round = 0; round < runs; round++) {
        for (const b of rotations(bundles, round)) samples.get(b.name)?.push(timeImport(b.file, env, flagsOf(b)));
      }
      const medians = (name: string): Sample => {
        const all = samples.get(name) ?? [];
        return [median(all.map((s) => s[0])), median(all.map((s) => s[1]))];
      };
      const [bareWall, bareCpu] = medians('bare');
      for (const b of bundles.filter((b) => b.name !== 'bare')) {
        const [wall, cpu] = medians(b.name);
        const kB = statSync(b.file).size / 1024;
        const flags = flagsOf(b);
        figures.push({ name: b.name, nodeFlags: flags, runs, bundleKB: kB, wallMs: wall, cpuMs: cpu, bareWallMs: bareWall, bareCpuMs: bareCpu });
        rows.push([
          `module init${deployed ? ' (as deployed)' : ''}`,
          `${b.name} (${n(kB, 1)} kB${flags.length ? `; ${flags.join(' ')}` : ''})`,
          `${n(wall, 1)} ms wall, ${n(cpu, 1)} ms CPU (median of ${runs})`,
          `bare ${n(bareWall, 1)} ms wall (×${n(wall / bareWall, 2)}), ${n(bareCpu, 1)} ms CPU (×${n(cpu / bareCpu, 2)})`,
        ]);
      }
    }
    return { rows, figures };
  },
};
