// `npm run smoke`: the smoke suite against a deployed stage (`--stage`, from its stack outputs)
// or any base URL (`--url URL --key KEY`, throwaway keys made in the local stack's tables).
import { parseArgs } from 'node:util';
import { API_URL_OUTPUT, isStageName, STAGE_NAMES } from '../outputs';
import { defaultStageClients, stackOutputs, stageTarget } from '../admin/stage';
import { localTarget, type AdminTarget } from '../admin/target';
import { errorMessage } from '../admin/errors';
import { runSmoke } from './suite';
import { bearer, call } from './http';
import { createThrowawayKey, firstAccepted, revokeKey } from './throwaway-keys';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = `Usage: npm run smoke -- --stage ${STAGE_NAMES.join('|')} [--key KEY] [--allow-writes]
       npm run smoke -- --url URL --key KEY [--allow-writes]

Checks a running API from outside, as a client would, one line per check; exits 1 if any fails.
--stage reads the stack outputs (ApiUrl) with your AWS credentials, and creates (then revokes)
its keys with the admin command's functions. --url takes any base URL ending in the base path,
e.g. http://127.0.0.1:3000/v1; throwaway keys then go to the local stack's tables (or those
DYNAMODB_ENDPOINT and the table variables name, as for the admin command). --url and --stage
together check that URL with the stage's keys.
--allow-writes lets it import two orders of its own (ids from 9100000000000000000 up) and
cancel them; without it, no order is changed. Prod should not need it.`;

function usageError(message: string): never {
  process.stderr.write(`Error: ${message}\n\n${USAGE}\n`);
  process.exit(2);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      'allow-writes': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values.stage !== undefined && !isStageName(values.stage)) usageError(`--stage must be one of ${STAGE_NAMES.join(', ')}`);
  if (values.stage === undefined && values.url === undefined) usageError('give --stage or --url');
  if (values.stage === undefined && values.key === undefined) usageError('--url needs --key (or --stage, which makes its own)');

  let admin: AdminTarget;
  let url = values.url;
  if (values.stage !== undefined && isStageName(values.stage)) {
    const clients = defaultStageClients();
    url ??= (await stackOutputs(clients.cloudFormation, values.stage)).get(API_URL_OUTPUT);
    if (!url) throw new Error(`the stack of ${values.stage} has no ${API_URL_OUTPUT} output`);
    admin = await stageTarget(values.stage, clients);
  } else {
    admin = localTarget();
  }
  const baseUrl = (url ?? '').replace(/\/+$/, '');
  const own = values.key === undefined ? await createThrowawayKey(admin, { perMinute: 60, perDay: 1_000 }) : undefined;
  try {
    // Only a refusal: it waits for the new key to reach API Gateway and changes nothing.
    if (own) await firstAccepted(() => call(baseUrl, 'DELETE', '/store/orders/not-a-number', { headers: bearer(own.key) }));
    process.stdout.write(`Smoke test of ${baseUrl} (keys and orders through ${admin.label})\n`);
    const results = await runSmoke({ baseUrl, key: values.key ?? own?.key ?? '', admin, allowWrites: values['allow-writes'], print: (line) => process.stdout.write(`${line}\n`) });
    const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
    process.stdout.write(`${count('ok')} passed, ${count('FAIL')} failed, ${count('skip')} skipped\n`);
    const failed = count('FAIL');
    return failed === 0 ? 0 : 1;
  } finally {
    if (own) await revokeKey(admin, own.id);
    admin.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
