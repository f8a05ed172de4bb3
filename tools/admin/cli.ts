import { runAdmin } from './run';
import { processOutput } from '../shared/output';
import { localTarget } from './target';
import { defaultStageClients, stageTarget } from './stage';
import { getEventListeners } from 'node:events';
import { errorMessage, EXIT_INTERRUPTED } from '../shared/errors';

// The SDK's notice about Node 20 would be printed on every run of a command-line tool.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// `admin -- keys list | head -1`: when the reader goes away, stop quietly with status 0, as Unix
// tools do on SIGPIPE (Node ignores SIGPIPE, so the write fails with EPIPE instead).
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

// A command that listens for Ctrl-C (orders import) stops cleanly on the first and says what it
// did; a second quits at once, as does the first for a command that does not listen.
const interrupt = new AbortController();
process.once('SIGINT', () => {
  if (getEventListeners(interrupt.signal, 'abort').length === 0) process.exit(EXIT_INTERRUPTED);
  interrupt.abort();
});

runAdmin(process.argv.slice(2), {
  out: processOutput,
  local: () => localTarget(),
  stage: (name) => stageTarget(name, defaultStageClients()),
  env: process.env,
  signal: interrupt.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // runAdmin handles its own errors; this is a last resort that still avoids a stack trace.
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
