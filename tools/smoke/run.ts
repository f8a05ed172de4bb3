// The `npm run smoke` command line: which API to check, with which key, and where throwaway keys
// and orders go. Everything it reaches is injected, so tests run it against the local stack with
// a fake AWS control plane. Every mistake is one line with its fix: a usage mistake, a URL where
// nothing answers or that lacks the base path, a key the API refuses, a missing AWS region.
import { API_URL_OUTPUT, STAGE_NAMES, V2_API_URL_OUTPUT, type StageName } from '../../lib/contract/deployment';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { closeStageClients, stackOutputs, stageTarget, type StageClients } from '../admin/stage';
import type { AdminTarget } from '../admin/target';
import { workingDemoKeys } from '../local/demo-data';
import {
  checkedSetting,
  errorMessage,
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  isMissingRegion,
  missingCredentialsMessage,
  UsageError,
} from '../shared/errors';
import { parseOptions, stageOption } from '../shared/args';
import { DEFAULT_HOST, portSetting } from '../shared/local-config';
import { npmTookOptionMessage } from '../shared/npm-options';
import type { Output } from '../shared/output';
import { runningStack, type StackDynamo } from '../shared/stack-state';
import { optionalEnv } from '../../lib/commons/env';
import { bearer, call } from './http';
import { checkBaseUrl, checkKey, findStackDynamo, PreflightFailed, type UrlSource } from './preflight';
import { runSmoke } from './suite';
import { firstAccepted, revokeKey, ThrowawayKeys, throwawayKeyName } from './throwaway-keys';

export const SMOKE_USAGE = `Usage: npm run smoke                (the local stack npm start runs, on whatever port it chose)
       npm run smoke -- --stage ${STAGE_NAMES.join('|')} [--region REGION] [--key KEY] [--allow-writes] [--run ID]
       npm run smoke -- --stage ${STAGE_NAMES.join('|')} --clean-up --run ID
       npm run smoke -- --url URL [--key KEY] [--allow-writes]

Checks a running API from outside, as a client would, one line per check; exits 1 if any fails,
2 if it cannot start (a usage mistake, nothing answering at the URL, a URL without the base path
${BASE_PATH}, a key the API refuses, no AWS region).
With no option it checks the local stack npm start runs (several running: pick one with --url;
PORT names its port), with a demo key or a throwaway key of its own.
--stage reads the stack outputs (ApiUrl, V2ApiUrl) with your AWS credentials and region (AWS_REGION, or
--region), and creates (then revokes) its keys with the admin command's functions; their API
Gateway keys are deleted at the end, also when a check fails or the run is interrupted (Ctrl-C,
SIGTERM). --run ID puts the id in the throwaway keys' names; --clean-up --run ID then removes
whatever keys that run left (the pipeline's always-run step, for a job that was killed).
--url takes any base URL ending in the base path, e.g. http://127.0.0.1:3000${BASE_PATH}. Without --stage it
must be a local stack's (npm start of this checkout): keys and orders then go to the DynamoDB
that stack recorded, never to another, and --key may be left out. --url and --stage together
check that URL with the stage's keys.
--allow-writes lets it import two orders of its own (ids from 9100000000000000000 up) and
cancel them; without it, no order is changed. Prod should not need it.`;

export interface SmokeDeps {
  out: Output;
  /** Clients for a deployed stage (AWS credentials from the environment; the region given or the environment's). */
  stageClients(region?: string): StageClients;
  /** The admin functions on the DynamoDB and tables that the local stack at the URL published. */
  local(found: StackDynamo): AdminTarget;
  sleep?: (ms: number) => Promise<void>;
  /** PORT for the local stack's URL, and npm_config_* for options npm took; the process's own in the CLI. */
  env?: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C or SIGTERM: the run stops, revokes its throwaway keys and returns 130 (cli.ts exits 143 for SIGTERM). */
  signal?: AbortSignal;
}

const OPTIONS = {
  stage: { type: 'string' },
  region: { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  'allow-writes': { type: 'boolean', default: false },
  run: { type: 'string' },
  'clean-up': { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
} as const;

/** The local stack's base URL: on PORT when set, else the one npm start recorded, else the default port's. */
async function localUrl(env: NodeJS.ProcessEnv): Promise<string> {
  const recorded = optionalEnv('PORT', env) ? undefined : await runningStack(env, (stack) => `--url ${stack.apiUrl}`);
  return recorded?.apiUrl ?? `http://${DEFAULT_HOST}:${checkedSetting(() => portSetting('PORT', env))}${BASE_PATH}`;
}

/** A working demo key of the local stack, the most generous first, when one passes the preflight. */
async function localDemoKey(admin: AdminTarget, baseUrl: string): Promise<string | undefined> {
  for (const { key } of (await workingDemoKeys(admin.keys)).reverse()) {
    try {
      await checkKey(baseUrl, key, 'local');
      return key;
    } catch (error) {
      // Used up or refused (another stack's tables): a throwaway key does instead.
      if (!(error instanceof PreflightFailed)) throw error;
    }
  }
  return undefined;
}

interface Run {
  admin?: AdminTarget;
  throwaway?: ThrowawayKeys;
}

async function smoke(argv: readonly string[], deps: SmokeDeps, run: Run): Promise<number> {
  const env = deps.env ?? {};
  // The smoke command takes no words, only options: the example shows just the one npm took.
  const tookOption = npmTookOptionMessage('smoke', Object.keys(OPTIONS), [], env);
  if (tookOption !== undefined) throw new UsageError(tookOption);
  const { values } = parseOptions(argv, OPTIONS);
  if (values.help) {
    deps.out.out(SMOKE_USAGE);
    return EXIT_OK;
  }
  const { region } = values;
  const stage = stageOption(values.stage);
  if (region !== undefined && stage === undefined) throw new UsageError('--region goes with --stage');
  if (values.run !== undefined && !RUN_ID_PATTERN.test(values.run))
    throw new UsageError('--run takes a run id of letters, digits, - and _, e.g. --run 12345678901');
  if (values['clean-up']) return cleanUp(deps, stage, region, values.run, values.url);

  let url = values.url;
  let v2Url: string | undefined;
  let source: UrlSource = url !== undefined ? 'url' : 'local';
  if (stage !== undefined) {
    const clients = deps.stageClients(region);
    // One DescribeStacks: the URL and the tables and plans come from the same outputs.
    const outputs = await stackOutputs(clients.cloudFormation, stage).catch((error: unknown) => {
      closeStageClients(clients);
      throw error;
    });
    run.admin = await stageTarget(stage, clients, outputs);
    // v2 is a RestApi of its own: on the execute-api host, not v1's URL with another prefix.
    v2Url = outputs.get(V2_API_URL_OUTPUT) || undefined;
    if (url === undefined) {
      url = outputs.get(API_URL_OUTPUT);
      source = 'stage';
    }
    if (!url) throw new Error(`the stack of ${stage} has no ${API_URL_OUTPUT} output; deploy the current version`);
  }
  const baseUrl = (url ?? (await localUrl(env))).replace(/\/+$/, '');
  // Without a stage, v2 is beside v1 on the same host (the local stack, a custom domain).
  v2Url ??=
    stage === undefined && baseUrl.endsWith(BASE_PATH) ? baseUrl.slice(0, -BASE_PATH.length) + V2_BASE_PATH : undefined;
  await checkBaseUrl(baseUrl, source);
  // Without a stage, keys go only to the DynamoDB the local stack at the URL recorded as its own.
  run.admin ??= deps.local(await findStackDynamo(baseUrl, source, env));
  const admin = run.admin;
  run.throwaway = new ThrowawayKeys(admin, deps.signal, values.run);
  let key = values.key;
  if (key !== undefined) await checkKey(baseUrl, key, source);
  // A local stack's (no --stage): one of its demo keys, or a throwaway key made in its tables.
  else if (stage === undefined) key = await localDemoKey(admin, baseUrl);
  if (key === undefined) {
    const own = await run.throwaway.create(PLAN_LIMITS.free);
    // Only a refusal: it waits for the new key to reach API Gateway and changes nothing.
    await firstAccepted(
      () => call(baseUrl, 'DELETE', '/store/orders/not-a-number', { headers: bearer(own.key) }),
      deps.sleep,
    );
    key = own.key;
  }
  deps.out.out(`Smoke test of ${baseUrl} (keys and orders through ${admin.label})`);
  const results = await runSmoke({
    baseUrl,
    ...(v2Url !== undefined ? { v2BaseUrl: v2Url.replace(/\/+$/, '') } : {}),
    key,
    admin,
    throwaway: run.throwaway,
    allowWrites: values['allow-writes'],
    print: (line) => deps.out.out(line),
    ...(deps.sleep ? { sleep: deps.sleep } : {}),
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  const count = (outcome: string) => results.filter((r) => r.outcome === outcome).length;
  deps.out.out(`${count('ok')} passed, ${count('FAIL')} failed, ${count('skip')} skipped`);
  return count('FAIL') === 0 ? EXIT_OK : EXIT_FAILURE;
}

/** A CI run id (GitHub's github.run_id is digits): kept simple, as it goes into key names and logs. */
const RUN_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

async function cleanUp(
  deps: SmokeDeps,
  stage: StageName | undefined,
  region: string | undefined,
  runId?: string,
  url?: string,
) {
  if (runId === undefined) throw new UsageError('--clean-up needs --run ID, the run whose keys to remove');
  // Locally, as for a run: the keys are in the DynamoDB the local stack recorded as its own.
  const admin =
    stage === undefined
      ? deps.local(
          await findStackDynamo(
            (url ?? (await localUrl(deps.env ?? {}))).replace(/\/+$/, ''),
            url ? 'url' : 'local',
            deps.env,
          ),
        )
      : await stageTarget(stage, deps.stageClients(region));
  try {
    const { revoked, unrecorded, problems } = await cleanUpRun(admin, runId);
    deps.out.out(
      `Run ${runId}: revoked ${revoked} throwaway key(s) left live, deleted ${unrecorded} unrecorded API Gateway key(s) (${admin.label}).`,
    );
    for (const problem of problems) deps.out.err(problem);
    return problems.length === 0 ? EXIT_OK : EXIT_FAILURE;
  } finally {
    admin.close();
  }
}

/**
 * The pipeline's `if: always()` step: a run that was killed (a cancelled or timed-out job, a lost
 * runner) cannot revoke its own keys; they are found by the run id in their names and removed, API
 * Gateway keys included, even one whose id the killed run never got to record.
 */
async function cleanUpRun(admin: AdminTarget, runId: string) {
  const name = throwawayKeyName(runId);
  const report = { revoked: 0, unrecorded: 0, problems: [] as string[] };
  for (const record of (await admin.keys.list()).filter((r) => r.name === name)) {
    try {
      if (record.revokedAt === undefined || record.gatewayKeyId !== undefined) {
        await revokeKey(admin, record.id);
        report.revoked++;
      }
      // Killed between creating the gateway key and recording its id: the key carries the record's id as its name.
      for (const gatewayKeyId of (await admin.gateway?.named(record.id)) ?? []) {
        await admin.gateway?.remove(gatewayKeyId, record.plan);
        report.unrecorded++;
      }
    } catch (error) {
      report.problems.push(`Could not remove ${record.id}: ${errorMessage(error)}`);
    }
  }
  return report;
}

/** One line for an error, and the exit status it means. */
function failure(error: unknown): { line: string; code: number } {
  if (error instanceof UsageError) {
    return { line: `Error: ${error.message} (npm run smoke -- --help shows the options)`, code: EXIT_USAGE };
  }
  if (error instanceof PreflightFailed) return { line: `Error: ${error.message}`, code: error.exitCode };
  if (isMissingRegion(error)) {
    return {
      line: 'Error: No AWS region is set: set AWS_REGION or pass --region, e.g. npm run smoke -- --stage staging --region eu-west-1',
      code: EXIT_USAGE,
    };
  }
  return { line: `Error: ${missingCredentialsMessage(error) ?? errorMessage(error)}`, code: EXIT_FAILURE };
}

/**
 * Runs the smoke command line; returns the exit status (0 all passed, 1 a check failed, 2 it could
 * not start, 130 interrupted). Its throwaway keys are revoked whatever happens.
 */
export async function runSmokeCommand(argv: readonly string[], deps: SmokeDeps): Promise<number> {
  const run: Run = {};
  const interrupted = new Promise<'interrupted'>((resolve) => {
    if (deps.signal?.aborted) resolve('interrupted');
    deps.signal?.addEventListener('abort', () => resolve('interrupted'), { once: true });
  });
  const running = smoke(argv, deps, run);
  // Left running on Ctrl-C: whatever it does after is moot, and the process exits.
  running.catch(() => undefined);
  try {
    const outcome = await Promise.race([running, interrupted]);
    if (outcome !== 'interrupted') return outcome;
    const problems = (await run.throwaway?.revokeAll()) ?? [];
    deps.out.err(
      problems.length === 0
        ? 'Interrupted: stopped, and the throwaway keys of this run are revoked (their API Gateway keys deleted).'
        : `Interrupted: stopped. ${problems.join(' ')}`,
    );
    return EXIT_INTERRUPTED;
  } catch (error) {
    const { line, code } = failure(error);
    deps.out.err(line);
    return code;
  } finally {
    for (const problem of (await run.throwaway?.revokeAll()) ?? []) deps.out.err(problem);
    run.admin?.close();
  }
}
