// `npm run smoke`: see run.ts.
import { defaultStageClients } from '../admin/stage';
import { processOutput } from '../shared/output';
import { runSmokeCommand } from './run';
import { stackTarget } from './stack-target';
import { errorMessage, EXIT_INTERRUPTED } from '../shared/errors';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The first Ctrl-C stops the run and revokes its throwaway keys; a second one quits at once.
const interrupt = new AbortController();
process.once('SIGINT', () => interrupt.abort());

runSmokeCommand(process.argv.slice(2), {
  out: processOutput,
  stageClients: defaultStageClients,
  local: stackTarget,
  env: process.env,
  signal: interrupt.signal,
}).then(
  (code) => {
    // Exits now when interrupted: a check cut short may still hold a socket open.
    if (code === EXIT_INTERRUPTED) process.exit(code);
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
