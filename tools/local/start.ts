// `npm start`. The command line is read before the stack's modules load, so --quiet can set the
// log level the functions' logger reads when it is created. Every mistake is one line and exit 2;
// an unexpected failure is one line and exit 1; never a stack trace.

import { createRequire } from 'node:module';
import { parseStartArgs, START_USAGE, startFailure } from './start-args';

function fail(error: unknown): never {
  const { line, code } = startFailure(error);
  console.error(line);
  process.exit(code);
}

/** scripts/check-node.cjs, which `npm test` runs: the pinned Node.js is declared and checked there only. */
interface NodeCheck {
  pinnedNodeWarning(): string | undefined;
}

async function main(): Promise<void> {
  // The stack runs on the machine's Node all the same; the warning says how to get the pinned one.
  const { pinnedNodeWarning } = createRequire(import.meta.url)('../../scripts/check-node.cjs') as NodeCheck;
  const warning = pinnedNodeWarning();
  if (warning !== undefined) console.error(`npm start: warning: ${warning}`);
  const options = parseStartArgs(process.argv.slice(2));
  if (options === 'help') {
    console.log(START_USAGE);
    return;
  }
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  if (options.quiet) {
    // Read by the Powertools logger and metrics when the handler modules load, below.
    process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
    process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  }
  const { startLocalStack, storeProblem } = await import('./serve');
  // Only while starting: a crash of the running stack later keeps Node's own report.
  const duringStart = (error: Error) => fail(storeProblem(error, options) ?? error);
  process.on('uncaughtException', duringStart);
  const stack = await startLocalStack(options, options.quiet ? undefined : (line) => console.log(line));
  process.off('uncaughtException', duringStart);
  console.log(stack.banner.join('\n'));
  const stop = () => void stack.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch(fail);
