// The `npm run smoke` command line: which API to check, with which key, and where throwaway keys
// and orders go. Everything it reaches is injected, so tests run it against the local stack with
// a fake AWS control plane.
import { parseArgs } from 'node:util';
import { API_URL_OUTPUT, isStageName, STAGE_NAMES } from '../../infra/outputs';
import { closeStageClients, stackOutputs, stageTarget, type StageClients } from '../admin/stage';
import type { AdminTarget } from '../admin/target';
import { errorMessage, EXIT_FAILURE, EXIT_OK, EXIT_USAGE, UsageError } from '../shared/errors';
import type { Output } from '../shared/output';
import { bearer, call } from './http';
import { runSmoke } from './suite';
import { createThrowawayKey, firstAccepted, revokeKey } from './throwaway-keys';

export const SMOKE_USAGE = `Usage: npm run smoke -- --stage ${STAGE_NAMES.join('|')} [--key KEY] [--allow-writes]
       npm run smoke -- --url URL --key KEY [--allow-writes]

Checks a running API from outside, as a client would, one line per check; exits 1 if any fails.
--stage reads the stack outputs (ApiUrl) with your AWS credentials, and creates (then revokes)
its keys with the admin command's functions. --url takes any base URL ending in the base path,
e.g. http://127.0.0.1:3000/v1; throwaway keys then go to the local stack's tables (or those
DYNAMODB_ENDPOINT and the table variables name, as for the admin command). --url and --stage
together check that URL with the stage's keys.
--allow-writes lets it import two orders of its own (ids from 9100000000000000000 up) and
cancel them; without it, no order is changed. Prod should not need it.`;

export interface SmokeDeps {
  out: Output;
  /** Clients for a deployed stage (AWS credentials and region from the environment). */
  stageClients(): StageClients;
  /** The local stack's tables, or those the environment names. */
  local(): AdminTarget;
  sleep?: (ms: number) => Promise<void>;
}

function parseSmokeArgs(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      options: {
        stage: { type: 'string' },
        url: { type: 'string' },
        key: { type: 'string' },
        'allow-writes': { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }).values;
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** Runs the smoke command line; returns the exit status (0 all passed, 1 a check failed, 2 usage). */
export async function runSmokeCommand(argv: readonly string[], deps: SmokeDeps): Promise<number> {
  let admin: AdminTarget | undefined;
  let own: { key: string; id: string } | undefined;
  try {
    const values = parseSmokeArgs(argv);
    if (values.help) {
      deps.out.out(SMOKE_USAGE);
      return EXIT_OK;
    }
    const { stage } = values;
    if (stage !== undefined && !isStageName(stage))
      throw new UsageError(`--stage must be one of ${STAGE_NAMES.join(', ')}`);
    if (stage === undefined && values.url === undefined) throw new UsageError('give --stage or --url');
    if (stage === undefined && values.key === undefined)
      throw new UsageError('--url needs --key (or --stage, which makes its own)');

    let url = values.url;
    if (stage !== undefined) {
      const clients = deps.stageClients();
      // One DescribeStacks: the URL and the tables and plans come from the same outputs.
      const outputs = await stackOutputs(clients.cloudFormation, stage).catch((error: unknown) => {
        closeStageClients(clients);
        throw error;
      });
      admin = await stageTarget(stage, clients, outputs);
      url ??= outputs.get(API_URL_OUTPUT);
      if (!url) throw new Error(`the stack of ${stage} has no ${API_URL_OUTPUT} output; deploy the current version`);
    } else {
      admin = deps.local();
    }
    const baseUrl = (url ?? '').replace(/\/+$/, '');
    if (values.key === undefined) {
      own = await createThrowawayKey(admin, { perMinute: 60, perDay: 1_000 });
      const key = own.key;
      // Only a refusal: it waits for the new key to reach API Gateway and changes nothing.
      await firstAccepted(
        () => call(baseUrl, 'DELETE', '/store/orders/not-a-number', { headers: bearer(key) }),
        deps.sleep,
      );
    }
    deps.out.out(`Smoke test of ${baseUrl} (keys and orders through ${admin.label})`);
    const results = await runSmoke({
      baseUrl,
      key: values.key ?? own?.key ?? '',
      admin,
      allowWrites: values['allow-writes'],
      print: (line) => deps.out.out(line),
      ...(deps.sleep ? { sleep: deps.sleep } : {}),
    });
    const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
    deps.out.out(`${count('ok')} passed, ${count('FAIL')} failed, ${count('skip')} skipped`);
    return count('FAIL') === 0 ? EXIT_OK : EXIT_FAILURE;
  } catch (error) {
    if (error instanceof UsageError) {
      deps.out.err(`Error: ${error.message}\n\n${SMOKE_USAGE}`);
      return EXIT_USAGE;
    }
    deps.out.err(`Error: ${errorMessage(error)}`);
    return EXIT_FAILURE;
  } finally {
    if (own && admin)
      await revokeKey(admin, own.id).catch((error: unknown) =>
        deps.out.err(`Could not revoke the throwaway key ${own?.id}: ${errorMessage(error)}`),
      );
    admin?.close();
  }
}
