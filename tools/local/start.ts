// `npm start`. The command line is read before the stack's modules load, so --quiet can set the
// log level the functions' logger reads when it is created. Every mistake is one line and exit 2;
// an unexpected failure is one line and exit 1; never a stack trace.

import { createRequire } from 'node:module';
import { LOCAL_TABLES } from '../shared/local-config';
import { recordStack } from '../shared/stack-state';
import { parseStartArgs, START_USAGE, startFailure } from './start-args';

/** How often the stack looks whether npm, its parent, is still there. */
const PARENT_CHECK_MS = 500;

function fail(error: unknown): never {
  const { line, code } = startFailure(error);
  console.error(line);
  process.exit(code);
}

async function main(): Promise<void> {
  // The pinned Node.js is declared and checked in scripts/check-node.cjs only. The stack runs on the
  // machine's Node all the same; the warning says how to get the pinned one.
  const { pinnedNodeWarning } = createRequire(import.meta.url)('../../scripts/check-node.cjs') as {
    pinnedNodeWarning(): string | undefined;
  };
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
  // Handlers before the record: without one a signal kills at once and the record stays. The first
  // Ctrl-C (npm passes it on too) stops the stack, removing the record before closing the ports.
  let stopping: Promise<void> | undefined;
  const stop = () => void (stopping ??= (forget(), stack.close().then(() => process.exit(0))));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, stop);
  // npm passes on SIGINT and SIGTERM, not SIGHUP or SIGKILL: whenever npm is gone (package.json's
  // `exec` makes it this process's parent), the stack stops too, rather than hold its ports.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && stop(), PARENT_CHECK_MS).unref();
  // For `npm stop` and the smoke command, before the banner says the stack is up; removed as the process exits.
  const record = {
    pid: process.pid,
    apiUrl: stack.apiUrl,
    endpoint: stack.dynamoEndpoint,
    tables: LOCAL_TABLES,
    webhookQueueUrl: stack.webhookQueueUrl,
  };
  const forget = recordStack(record);
  console.log(stack.banner.join('\n'));
}

main().catch(fail);
