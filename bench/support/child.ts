// Bench scripts in fresh node processes, started as Lambda starts the function they measure, so
// their timings and memory peaks are their own.

import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { FUNCTIONS, type EntryId } from '../../lib/contract/deployment';
import { BUNDLING } from '../../infra/functions';
import { lambdaRuntimeNodeFlags, NODE_FLAGS_WRAPPER, nodeFlagsEnvironment } from '../../infra/runtime/lambda-node';
import { CHILD_ARGS_VAR } from './env';

/** One entry bundled with the deployed functions' esbuild settings, into `<outDir>/<name>/index.mjs`. */
export async function bundle(entry: string, outDir: string, name: string): Promise<string> {
  const outfile = path.join(outDir, name, 'index.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    target: BUNDLING.target,
    format: BUNDLING.format,
    platform: BUNDLING.platform,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    external: [...BUNDLING.external],
    logLevel: 'warning',
  });
  return outfile;
}

/** Node flags before the script, and the flags a function adds through the Lambda wrapper script. */
export interface ChildLaunch {
  nodeFlags: readonly string[];
  wrapperFlags?: readonly string[];
}

/**
 * As Lambda starts the function: source maps as its NODE_OPTIONS gives them, the runtime's heap
 * flags for its memory (V8 sizes its heap from them), then its own flags through the wrapper.
 */
export function deployedLaunch(id: EntryId): ChildLaunch {
  const { memoryMb, nodeFlags = [] } = FUNCTIONS[id];
  const runtime = [...(BUNDLING.sourceMap ? ['--enable-source-maps'] : []), ...lambdaRuntimeNodeFlags(memoryMb)];
  return nodeFlags.length ? { nodeFlags: runtime, wrapperFlags: nodeFlags } : { nodeFlags: runtime };
}

/** The flags a launch gives node, in the order node gets them. */
export const launchArgs = (launch: ChildLaunch): string[] => [...launch.nodeFlags, ...(launch.wrapperFlags ?? [])];

export const execFileAsync = promisify(execFile);

/**
 * Runs a bundled bench script and resolves to the last line it prints, as JSON. Asynchronous on
 * purpose: the embedded server the child reads from runs in this process.
 */
export async function runChild<T>(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  launch: ChildLaunch = { nodeFlags: [] },
): Promise<T> {
  const node = [process.execPath, ...launch.nodeFlags, file];
  const wrapper = launch.wrapperFlags ? nodeFlagsEnvironment(launch.wrapperFlags) : undefined;
  const [command = '', ...argv] = wrapper ? [NODE_FLAGS_WRAPPER.source, ...node] : node;
  const childEnv = { ...env, ...wrapper, [CHILD_ARGS_VAR]: JSON.stringify(args) };
  const { stdout } = await execFileAsync(command, argv, { env: childEnv, maxBuffer: 1024 ** 2 });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '') as T;
}
