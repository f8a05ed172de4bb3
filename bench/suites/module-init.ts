// Cold start: each function bundled as deployed and imported in a fresh node started with the
// flags Lambda gives it, against a bare bundle of only the DynamoDB document client and middy core
// (the floor every function starts from) started with the same flags, in rotating order.

import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FUNCTIONS, type EntryId } from '../../lib/contract/deployment';
import { functionEntry } from '../../infra/functions';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import type { Suite } from '../suite';
import { bundle, deployedLaunch, launchArgs } from '../support/child';
import { lambdaEnv } from '../support/env';
import { median, rotations } from '../support/stats';

type Timing = { wallMs: number; cpuMs: number };
type FunctionInit = Timing & { name: string; nodeFlags: string[]; bundleKB: number; bare: Timing };
export type ModuleInitFigures = { runs: number; functions: FunctionInit[] };

const BARE_ENTRY = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'bare-entry.ts');
/** The runtime's `awslambda` global first (list-orders streamifies its handler while loading), then the import, timed. */
const IMPORT_TIMER = `globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
const [started, cpu] = [performance.now(), process.cpuUsage()];
await import(process.argv[1]);
const used = process.cpuUsage(cpu);
process.stdout.write(JSON.stringify({ wallMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000 }));`;
// No endpoint: module init makes no DynamoDB call.
const ENV = lambdaEnv(tableNamesWithPrefix('bench-init'));

function timeImport(file: string, flags: readonly string[]): Timing {
  const args = [...flags, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href];
  const run = spawnSync(process.execPath, args, { env: ENV, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`Importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout) as Timing;
}

export const moduleInit: Suite<ModuleInitFigures> = {
  name: 'module init',
  async run({ quick, outDir }) {
    const runs = quick ? 8 : 40;
    const bare = await bundle(BARE_ENTRY, outDir, 'bare');
    const imports: { id: EntryId; file: string; flags: string[]; samples: Timing[] }[] = [];
    for (const id of Object.keys(FUNCTIONS) as EntryId[]) {
      const [file, flags] = [await bundle(functionEntry(id), outDir, id), launchArgs(deployedLaunch(id))];
      imports.push({ id, file, flags, samples: [] }, { id, file: bare, flags, samples: [] });
    }
    for (const i of imports) timeImport(i.file, i.flags); // warms the OS file cache
    for (let round = 0; round < runs; round++)
      for (const i of rotations(imports, round)) i.samples.push(timeImport(i.file, i.flags));
    const medians = ({ samples }: { samples: Timing[] }): Timing => ({
      wallMs: median(samples.map((s) => s.wallMs)),
      cpuMs: median(samples.map((s) => s.cpuMs)),
    });
    const functions = imports.flatMap((i, k) => {
      const b = imports[k + 1];
      if (i.file === bare || !b) return [];
      return [
        { name: i.id, nodeFlags: i.flags, bundleKB: statSync(i.file).size / 1024, ...medians(i), bare: medians(b) },
      ];
    });
    return { runs, functions };
  },
};
