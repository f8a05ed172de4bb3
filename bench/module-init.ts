import { spawnSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { childEnv, lambdaEnv } from './bench-env';
import type { BundleFigures, BundleName } from './bundles';
import { median, rotations } from './stats';
import { tableNamesWithPrefix } from '../lib/create-tables';

/**
 * Runs in a fresh node: the runtime's `awslambda` global first (list-orders streamifies its
 * handler while loading), then the bundle's import timed from start to the end of its top level.
 */
const IMPORT_TIMER = [
  'globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };',
  'const started = performance.now();',
  'await import(process.argv[1]);',
  'process.stdout.write(String(performance.now() - started));',
].join('\n');

export interface InitFigures {
  name: BundleName;
  runs: number;
  medianMs: number;
  /** Median init time over the bare bundle's median. */
  ratio: number;
}

function timeImportOnce(file: string, env: Record<string, string>): number {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', IMPORT_TIMER, pathToFileURL(file).href], {
    env,
    encoding: 'utf8',
  });
  const ms = Number(run.stdout);
  if (run.status !== 0 || !Number.isFinite(ms)) {
    throw new Error(`Importing ${file} failed (exit ${run.status}): ${run.stderr.slice(0, 500)}`);
  }
  return ms;
}

/** Each round imports every bundle once, in a rotating order, each in its own process. */
export function measureModuleInit(bundles: readonly BundleFigures[], runs: number): InitFigures[] {
  // Not pointed at any endpoint: module init makes no DynamoDB call, and the deployed functions
  // use the AWS default endpoint.
  const env = childEnv(lambdaEnv(tableNamesWithPrefix('bench-init')));
  const samples = new Map<BundleName, number[]>(bundles.map((b) => [b.name, []]));
  for (const bundle of bundles) timeImportOnce(bundle.file, env); // warms the OS file cache
  for (let round = 0; round < runs; round++) {
    for (const bundle of rotations(bundles, round)) samples.get(bundle.name)?.push(timeImportOnce(bundle.file, env));
  }
  const bare = median(samples.get('bare') ?? []);
  return bundles.map((b) => {
    const medianMs = median(samples.get(b.name) ?? []);
    return { name: b.name, runs, medianMs, ratio: medianMs / bare };
  });
}
