// The `npm run bench` command line: node:util parseArgs, and every mistake one line with the fix
// (run.ts prints it, exit 2), as the admin and smoke commands do.
import { parseArgs } from 'node:util';
import { parseArgsMessage } from '../tools/shared/errors';
import { npmTookOptionMessage } from '../tools/shared/npm-options';

const OPTIONS = {
  quick: { type: 'boolean' },
  docs: { type: 'boolean' },
  suite: { type: 'string', multiple: true },
  merge: { type: 'boolean' },
  'sync-1m': { type: 'boolean' },
  orders: { type: 'string', multiple: true },
  help: { type: 'boolean' },
} as const;

/** `npm run bench -- --help`, naming the suites there are. */
export const benchUsage = (
  suites: readonly string[],
) => `Usage: npm run bench [-- [--quick] [--suite NAME]... [--orders N]... [--merge] [--sync-1m]]
       npm run bench -- --docs

Runs the suites in turn on an embedded DynamoDB and prints their figures as one Markdown table.
A full run of every suite writes bench/results.json and rewrites the figures in docs/benchmarks.md
and docs/design.md from it (docs/benchmarks.md says how to read them).
  --quick        smaller sizes and fewer iterations: a check that everything runs; writes nothing
  --suite NAME   only that suite (repeatable), one of:
                 ${suites.map((name) => `'${name}'`).join(', ')}
  --orders N     with --suite 'listing', list stores of N orders (repeatable): a narrow run, printed only
  --merge        with --suite, full figures: puts those suites' figures into bench/results.json
  --sync-1m      the sync suite grows its store to 1,000,000 orders too (most of the run's time)
  --docs         measures nothing: rewrites the docs' figures from bench/results.json`;

/** A mistake in the command line: run.ts prints it as one line, exit 2. */
export class BenchUsageError extends Error {
  override readonly name = 'BenchUsageError';
}

/** The options given, or a BenchUsageError saying what is wrong (npm's `npm_config_*` say what npm took). */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv) {
  const taken = npmTookOptionMessage('bench', Object.keys(OPTIONS), argv, env);
  if (taken !== undefined) throw new BenchUsageError(taken);
  try {
    return parseArgs({ args: [...argv], options: OPTIONS }).values;
  } catch (error) {
    throw new BenchUsageError(parseArgsMessage(error));
  }
}
