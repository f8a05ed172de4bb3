import { spawn } from 'node:child_process';
import { FUNCTIONS, type FunctionId } from '../../infra/functions';
import { lambdaRuntimeNodeFlags, NODE_FLAGS_WRAPPER, nodeFlagsEnvironment } from '../../infra/runtime/lambda-node';
import { DEPLOYED_NODE_FLAGS } from './bundle';
import { CHILD_ARGS_VAR } from './child-args';

/** How a child starts: node flags before its script, and the flags a function adds through the Lambda wrapper. */
export interface ChildLaunch {
  nodeFlags?: readonly string[];
  /** Started through infra/runtime/node-flags.sh with these flags, as Lambda starts such a function. */
  wrapperFlags?: readonly string[];
}

/**
 * A child started as Lambda starts the function: with the runtime's flags for its memory (V8 sizes
 * its heap from them, so the machine's defaults would not show the deployed peak), source maps as
 * NODE_OPTIONS gives them, and the function's own flags through the wrapper.
 */
export function deployedLaunch(id: FunctionId): ChildLaunch {
  const { memoryMb, nodeFlags = [] } = FUNCTIONS[id];
  const runtime = [...DEPLOYED_NODE_FLAGS, ...lambdaRuntimeNodeFlags(memoryMb)];
  return nodeFlags.length ? { nodeFlags: runtime, wrapperFlags: nodeFlags } : { nodeFlags: runtime };
}

/** The flags a launch gives node, in the order node gets them. */
export const launchArgs = (launch: ChildLaunch): string[] => [
  ...(launch.nodeFlags ?? []),
  ...(launch.wrapperFlags ?? []),
];
/** The same, as a label. */
export const launchFlags = (launch: ChildLaunch): string => launchArgs(launch).join(' ');

/**
 * Runs a bundled bench script in a fresh node and resolves to its result: the last line it prints,
 * as JSON (anything the service logs comes before it). Asynchronous on purpose: the embedded
 * server the child reads from runs in this process. A child that ran out of heap (under a cap)
 * resolves to `{ failed }`; any other failure rejects.
 */
export function runChild<T>(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  launch: ChildLaunch = {},
): Promise<T | { failed: string }> {
  const node = [process.execPath, '--expose-gc', ...(launch.nodeFlags ?? []), file];
  const wrapped = launch.wrapperFlags !== undefined;
  const [command, ...argv] = wrapped ? [NODE_FLAGS_WRAPPER.source, ...node] : node;
  const childEnv = {
    ...env,
    [CHILD_ARGS_VAR]: JSON.stringify(args),
    ...(wrapped ? nodeFlagsEnvironment(launch.wrapperFlags ?? []) : {}),
  };
  return new Promise((resolve, reject) => {
    const child = spawn(command as string, argv, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as T);
      else if (/heap out of memory/i.test(err)) resolve({ failed: 'heap out of memory' });
      else reject(new Error(`${file} ${args.join(' ')} exited ${code}: ${err.slice(0, 800)}`));
    });
  });
}

/** The result of a child that must not fail. */
export async function runChildOrThrow<T>(
  file: string,
  args: readonly string[],
  env: Record<string, string>,
  launch: ChildLaunch = {},
): Promise<T> {
  const result = await runChild<T>(file, args, env, launch);
  if (typeof result === 'object' && result !== null && 'failed' in result)
    throw new Error(`${file} ${args.join(' ')}: ${String(result.failed)}`);
  return result as T;
}
