// A bench child's own arguments travel in the environment, not on its command line: a child started
// as Lambda starts a function (through infra/runtime/node-flags.sh) must have its script last.

export const CHILD_ARGS_VAR = 'BENCH_CHILD_ARGS';

/** In a child: the arguments runChild gave it. */
export function childArgs(): string[] {
  return JSON.parse(process.env[CHILD_ARGS_VAR] ?? '[]') as string[];
}
