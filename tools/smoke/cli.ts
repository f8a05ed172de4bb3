// `npm run smoke`: see run.ts.
import { defaultStageClients } from '../admin/stage';
import { processOutput } from '../shared/output';
import { localTarget } from '../admin/target';
import { runSmokeCommand } from './run';
import { errorMessage } from '../shared/errors';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runSmokeCommand(process.argv.slice(2), {
  out: processOutput,
  stageClients: defaultStageClients,
  local: () => localTarget(),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
