// `npm run smoke`: see run.ts.
import { constants } from 'node:os';
import { defaultStageClients } from '../admin/stage';
import { stackTarget } from '../admin/target';
import { processOutput } from '../shared/output';
import { runSmokeCommand } from './run';
import { errorMessage, EXIT_INTERRUPTED } from '../shared/errors';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The first Ctrl-C, or SIGTERM (a cancelled or timed-out CI job), stops the run and revokes its
// throwaway keys; a second one quits at once. The exit status names the signal (128 + its number).
const interrupt = new AbortController();
let caught: NodeJS.Signals | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    caught ??= signal;
    interrupt.abort();
  });
}

runSmokeCommand(process.argv.slice(2), {
  out: processOutput,
  stageClients: defaultStageClients,
  local: stackTarget,
  env: process.env,
  signal: interrupt.signal,
}).then(
  (code) => {
    // Exits now when interrupted: a check cut short may still hold a socket open.
    if (code === EXIT_INTERRUPTED) process.exit(caught === 'SIGTERM' ? 128 + constants.signals.SIGTERM : code);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
