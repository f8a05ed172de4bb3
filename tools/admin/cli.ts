import { runAdmin } from './run';
import { processOutput } from '../shared/output';
import { localTarget } from './target';
import { defaultStageClients, stageTarget } from './stage';
import { errorMessage } from '../shared/errors';

// The SDK's notice about Node 20 would be printed on every run of a command-line tool.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

runAdmin(process.argv.slice(2), {
  out: processOutput,
  local: () => localTarget(),
  stage: (name) => stageTarget(name, defaultStageClients()),
  env: process.env,
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
