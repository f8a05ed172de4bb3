// Cold start: each function bundled as deployed, imported in a fresh node process, against a bare
// bundle of only the DynamoDB document client and middy core.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FUNCTIONS, functionEntry, type FunctionId } from '../../infra/functions';
import { tableNamesWithPrefix } from '../../lib/aws/tables';
import { bundle } from '../support/bundle';
import { deployedLaunch, launchArgs } from '../support/child';
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
  const run = spawnSync(
    process.execPath,
    [...flags, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href],
    { env, encoding: 'utf8' },
  );
  if (run.status !== 0) throw new Error(`Importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout) as Sample;
}

export const moduleInit: Suite = {
  name: 'module init',
  async run({ quick, outDir }) {
    const runs = quick ? 8 : 40;
    const functions: { id: FunctionId; file: string }[] = [];
    for (const id of Object.keys(FUNCTIONS) as FunctionId[])
      functions.push({ id, file: await bundle(functionEntry(id), outDir, id) });
    const bare = await bundle(BARE_ENTRY, outDir, 'bare');
    // No endpoint: module init makes no DynamoDB call.
    const env = childEnv(lambdaEnv(tableNamesWithPrefix('bench-init')));
    const rows: Row[] = [];
    const figures = [];
    for (const deployed of [false, true]) {
      // As deployed, node starts with the flags Lambda gives the function (its heap sizes follow its
      // memory, and they change the time V8 takes to load a bundle), the bare bundle with the same.
      const timed = functions.flatMap(({ id, file }) => {
        const flags = deployed ? launchArgs(deployedLaunch(id)) : [];
        return [
          { key: `${id}`, file, flags },
          { key: `bare as ${id}`, file: bare, flags },
        ];
      });
      const samples = new Map<string, Sample[]>(timed.map((t) => [t.key, []]));
      for (const t of timed) timeImport(t.file, env, t.flags); // warms the OS file cache
      for (let round = 0; round < runs; round++) {
        for (const t of rotations(timed, round)) samples.get(t.key)?.push(timeImport(t.file, env, t.flags));
      }
      const medians = (key: string): Sample => {
        const all = samples.get(key) ?? [];
        return [median(all.map((s) => s[0])), median(all.map((s) => s[1]))];
      };
      for (const { id, file } of functions) {
        const [wall, cpu] = medians(id);
        const [bareWall, bareCpu] = medians(`bare as ${id}`);
        const kB = statSync(file).size / 1024;
        const flags = timed.find((t) => t.key === id)?.flags ?? [];
        figures.push({
          name: id,
          nodeFlags: flags,
          runs,
          bundleKB: kB,
          wallMs: wall,
          cpuMs: cpu,
          bareWallMs: bareWall,
          bareCpuMs: bareCpu,
        });
        rows.push([
          `module init${deployed ? ' (as deployed)' : ''}`,
          `${id} (${n(kB, 1)} kB${flags.length ? `; ${flags.join(' ')}` : ''})`,
          `${n(wall, 1)} ms wall, ${n(cpu, 1)} ms CPU (median of ${runs})`,
          `bare ${n(bareWall, 1)} ms wall (×${n(wall / bareWall, 2)}), ${n(bareCpu, 1)} ms CPU (×${n(cpu / bareCpu, 2)})`,
        ]);
      }
    }
    return { rows, figures };
  },
};
