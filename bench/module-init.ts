import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { childEnv, lambdaEnv } from './bench-env';
import type { BundleFigures, BundleName } from './bundles';
import { median, rotations } from './stats';
import { tableNamesWithPrefix } from '../infra/local/create-tables';

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

export interface InitFigures {
  name: BundleName;
  /** Node flags of the timed processes: none, or the deployed functions' NODE_OPTIONS. */
  nodeFlags: string[];
  runs: number;
  medianMs: number;
  /** Median init time over the bare bundle's median. */
  ratio: number;
  /** The same in CPU time, which other work on a busy machine disturbs less than wall time. */
  medianCpuMs: number;
  cpuRatio: number;
}

type Sample = [wallMs: number, cpuMs: number];

function timeImportOnce(file: string, env: Record<string, string>, nodeFlags: string[]): Sample {
  const run = spawnSync(process.execPath, [...nodeFlags, '--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href], {
    env,
    encoding: 'utf8',
  });
  if (run.status !== 0) throw new Error(`Importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  return JSON.parse(run.stdout) as Sample;
}

/** Each round imports every bundle once, in a rotating order, each in its own process. */
export function measureModuleInit(bundles: readonly BundleFigures[], runs: number, nodeFlags: string[] = []): InitFigures[] {
  // Not pointed at any endpoint: module init makes no DynamoDB call, and the deployed functions
  // use the AWS default endpoint.
  const env = childEnv(lambdaEnv(tableNamesWithPrefix('bench-init')));
  const samples = new Map<BundleName, Sample[]>(bundles.map((b) => [b.name, []]));
  for (const bundle of bundles) timeImportOnce(bundle.file, env, nodeFlags); // warms the OS file cache
  for (let round = 0; round < runs; round++) {
    for (const bundle of rotations(bundles, round)) samples.get(bundle.name)?.push(timeImportOnce(bundle.file, env, nodeFlags));
  }
  const medianOf = (name: BundleName, which: 0 | 1) => median((samples.get(name) ?? []).map((s) => s[which]));
  return bundles.map((b) => {
    const medianMs = medianOf(b.name, 0);
    const medianCpuMs = medianOf(b.name, 1);
    return { name: b.name, nodeFlags, runs, medianMs, ratio: medianMs / medianOf('bare', 0), medianCpuMs, cpuRatio: medianCpuMs / medianOf('bare', 1) };
  });
}
