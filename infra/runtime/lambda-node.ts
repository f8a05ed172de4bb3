// How the Lambda Node.js runtime starts node, and how a function adds V8 flags to that command.
// The runtime's bootstrap (/var/runtime/bootstrap in the public Lambda base images, the same shape
// from nodejs18.x on) runs `/var/lang/bin/node --expose-gc --max-http-header-size 81920
// --max-semi-space-size=<n> --max-old-space-size=<n> /var/runtime/index.mjs`: a tenth of the
// function's memory as new space (half of it a semi-space), the rest as old space, and one flag
// whose value is a separate argument. Through a wrapper (AWS_LAMBDA_EXEC_WRAPPER) it runs
// `<wrapper> /var/lang/bin/node <the same arguments>`. Node applies NODE_OPTIONS before the
// command line, so a heap flag there loses, and NODE_OPTIONS refuses most V8 flags anyway. A
// function that needs V8 flags therefore starts through the wrapper script node-flags.sh, which
// puts them right after node and leaves out the runtime's own setting of the same flags.
import * as path from 'node:path';
import { REPO_ROOT } from '../functions';

/** Where Lambda unpacks a function's code (LAMBDA_TASK_ROOT). */
export const LAMBDA_TASK_ROOT = '/var/task';

/** The wrapper script: in the repository, and at the root of every bundle that needs it. */
export const NODE_FLAGS_WRAPPER = {
  source: path.join(REPO_ROOT, 'infra', 'runtime', 'node-flags.sh'),
  fileName: 'node-flags.sh',
  /** The variable the script reads the flags from, separated by spaces. */
  flagsVar: 'EXTRA_NODE_FLAGS',
} as const;

/** The node executable and entry script of the Lambda Node.js runtime. */
export const LAMBDA_RUNTIME = { node: '/var/lang/bin/node', entry: '/var/runtime/index.mjs' } as const;

/** The arguments the Lambda runtime gives node before its entry script, for a function of this much memory. */
export function lambdaRuntimeNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    '--max-http-header-size',
    '81920',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
}

/**
 * The runtime's whole command as the wrapper receives it: node, its flags, its entry script. The
 * tests run it with this machine's node and a probe script in place of Lambda's paths.
 */
export function lambdaRuntimeCommand(
  memoryMb: number,
  paths: { node: string; entry: string } = LAMBDA_RUNTIME,
): string[] {
  return [paths.node, ...lambdaRuntimeNodeFlags(memoryMb), paths.entry];
}

/** The environment that makes Lambda start a function through the wrapper with these node flags. */
export function nodeFlagsEnvironment(flags: readonly string[]): Record<string, string> {
  const bad = flags.filter((flag) => !/^--[a-z0-9_-]+(=\S+)?$/.test(flag));
  if (flags.length === 0 || bad.length > 0) {
    throw new Error(
      `Node flags must be one or more --flag or --flag=value without spaces; got ${JSON.stringify(flags)}`,
    );
  }
  return {
    AWS_LAMBDA_EXEC_WRAPPER: `${LAMBDA_TASK_ROOT}/${NODE_FLAGS_WRAPPER.fileName}`,
    [NODE_FLAGS_WRAPPER.flagsVar]: flags.join(' '),
  };
}
