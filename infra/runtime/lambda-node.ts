// How the Lambda Node.js runtime starts node, and how a function adds V8 flags to that command.
// The runtime's bootstrap (/var/runtime/bootstrap in the public Lambda base images) passes its own
// heap sizes on the command line: a tenth of the function's memory as new space (half of it a
// semi-space), the rest as old space. Node applies NODE_OPTIONS before the command line, so a heap
// flag there loses, and NODE_OPTIONS refuses most V8 flags anyway. A function that needs V8 flags
// therefore starts through the wrapper script node-flags.sh (AWS_LAMBDA_EXEC_WRAPPER), which places
// them after the runtime's own.
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

/** The flags the Lambda runtime starts node with, for a function of this much memory. */
export function lambdaRuntimeNodeFlags(memoryMb: number): string[] {
  const newSpace = Math.floor(memoryMb / 10);
  return [
    '--expose-gc',
    `--max-semi-space-size=${Math.floor(newSpace / 2)}`,
    `--max-old-space-size=${memoryMb - newSpace}`,
  ];
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
