// The pre-traffic hook of one function's deployment group (CodeDeploy's BeforeAllowTrafficHook):
// it invokes the version the release is about to shift the alias to, directly, with the function's
// synthetic requests, and reports Failed on any wrong answer, which stops the release and rolls it
// back before a single call has moved. Its environment names the function and the version, and for
// the authorizer the secret holding the stage's canary key.
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Context } from 'aws-lambda';
import { logger } from '../../lib/commons/logger';
import { REAL_TIMERS, type Timers } from '../../lib/commons/timers';
import { isFunctionId, RELEASE_HOOK_TIMEOUT_SECONDS, type FunctionId } from '../../lib/contract/deployment';
import { secretsManagerReader } from '../../lib/root/secrets';
import { RELEASE_CHECKS, type InvokeAnswer, type ReleaseCheck } from './checks';

/** The environment variables the stack gives the hook. */
export const HOOK_ENV = {
  functionId: 'RELEASE_FUNCTION_ID',
  versionArn: 'RELEASE_VERSION_ARN',
  /** The authorizer's hook only: the ARN of the secret holding the stage's canary key. */
  canaryKeySecret: 'RELEASE_CANARY_KEY_SECRET_ARN',
} as const;

export interface HookEvent {
  DeploymentId: string;
  LifecycleEventHookExecutionId: string;
}

/** What the hook checks: one function's version. */
export interface HookTarget {
  functionId: FunctionId;
  versionArn: string;
}

/** Every call the hook makes is given a signal, aborted when the call's time is up. */
export interface HookDeps {
  /** The function and version to check; throws when the environment names none. */
  target(): HookTarget;
  invoke(versionArn: string, event: unknown, signal: AbortSignal): Promise<InvokeAnswer>;
  /** The stage's canary key, for the checks that need a real key. */
  canaryKey(signal: AbortSignal): Promise<string>;
  report(event: HookEvent, status: 'Succeeded' | 'Failed', signal: AbortSignal): Promise<void>;
  /** The checks of each function; RELEASE_CHECKS unless given. */
  checks?: Record<FunctionId, readonly ReleaseCheck[]>;
  /** The clock the bounds are kept on: the real one unless given (tests give a virtual one). */
  timers?: Timers;
}

/**
 * How the hook spends its time, all derived from its timeout: each call of the checks (an Invoke
 * of the new version, the secret read) is cut at a quarter of it, and all of them end a quarter
 * before it, which leaves a sixth for the report and a twelfth for Lambda to end the invocation.
 * A check that is cut reports Failed: Lambda would otherwise stop the hook at its timeout before
 * its `finally` ran, nothing would be reported, and CodeDeploy would wait out its hook timeout.
 */
export function hookBounds(timeoutMs: number) {
  return { callMs: timeoutMs / 4, reportMs: timeoutMs / 6, marginMs: timeoutMs / 12 };
}

export const HOOK_BOUNDS = hookBounds(RELEASE_HOOK_TIMEOUT_SECONDS * 1000);

/** A call, or the checks as a whole, that ran out of its time. */
export class HookTimeout extends Error {
  override readonly name = 'HookTimeout';
}

/**
 * `call`, given a signal that aborts after `ms` on `timers`; it rejects then with a HookTimeout,
 * whether or not `call` heeds the signal (an SDK call does: it drops its request).
 */
async function bounded<T>(timers: Timers, ms: number, what: string, call: (signal: AbortSignal) => Promise<T>) {
  const controller = new AbortController();
  const timeout = new HookTimeout(`${what} did not finish within ${Math.max(0, Math.round(ms))} ms`);
  let cancel = () => {};
  const expired = new Promise<never>((_, reject) => {
    cancel = timers.after(Math.max(0, ms), () => {
      controller.abort(timeout);
      reject(timeout);
    });
  });
  try {
    return await Promise.race([call(controller.signal), expired]);
  } finally {
    cancel();
  }
}

/**
 * Runs every check of the function; reports Failed on the first wrong answer, failed call, call
 * that ran out of its time, or anything that throws. The report is made in a `finally`, before the
 * hook's own timeout: a hook that reported nothing would leave CodeDeploy waiting for a status
 * until its lifecycle-event timeout (an hour), longer than a deploy job waits.
 */
export function makeReleaseHook(deps: HookDeps) {
  const timers = deps.timers ?? REAL_TIMERS;
  return async (
    event: HookEvent,
    context: Pick<Context, 'getRemainingTimeInMillis'>,
  ): Promise<'Succeeded' | 'Failed'> => {
    const { callMs, reportMs, marginMs } = HOOK_BOUNDS;
    const checksEnd = timers.now() + context.getRemainingTimeInMillis() - reportMs - marginMs;
    const within = <T>(what: string, call: (signal: AbortSignal) => Promise<T>) =>
      bounded(timers, Math.min(callMs, checksEnd - timers.now()), what, call);
    let status: 'Succeeded' | 'Failed' = 'Failed';
    try {
      status = await bounded(timers, checksEnd - timers.now(), 'the checks', () => runChecks(deps, within));
    } catch (error) {
      logger.error('release check could not run', { error: errorMessage(error) });
      status = 'Failed';
    } finally {
      await bounded(timers, reportMs, 'the report', (signal) => deps.report(event, status, signal));
    }
    return status;
  };
}

type Within = <T>(what: string, call: (signal: AbortSignal) => Promise<T>) => Promise<T>;

async function runChecks(deps: HookDeps, within: Within): Promise<'Succeeded' | 'Failed'> {
  const { functionId, versionArn } = deps.target();
  const canaryKey = () => within("the canary key's secret read", (signal) => deps.canaryKey(signal));
  for (const check of (deps.checks ?? RELEASE_CHECKS)[functionId]) {
    // A check that cannot be prepared (no canary key) throws: the release fails, reported.
    const { event, judge } = await check.prepare({ canaryKey });
    let wrong: string | undefined;
    try {
      wrong = judge(await within('the invocation', (signal) => deps.invoke(versionArn, event, signal)));
    } catch (error) {
      wrong = `the invocation failed: ${errorMessage(error)}`;
    }
    if (wrong) {
      logger.error('release check failed', { check: check.name, wrong, version: versionArn });
      return 'Failed';
    }
    logger.info('release check passed', { check: check.name, version: versionArn });
  }
  return 'Succeeded';
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The AWS clients the hook calls through; tests point them elsewhere. */
export interface HookClients {
  lambda: LambdaClient;
  codeDeploy: CodeDeployClient;
  secretsManager: SecretsManagerClient;
}

/**
 * The hook's dependencies from its environment; reading it is left to the checks, so a bad one is
 * reported. Every SDK call is given the call's abort signal, so a call that is cut drops its request.
 */
export function hookDepsFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  clients: HookClients = {
    lambda: new LambdaClient({}),
    codeDeploy: new CodeDeployClient({}),
    secretsManager: new SecretsManagerClient({}),
  },
): HookDeps {
  const { lambda, codeDeploy } = clients;
  const readSecret = secretsManagerReader(clients.secretsManager);
  return {
    target: () => {
      const functionId = env[HOOK_ENV.functionId];
      const versionArn = env[HOOK_ENV.versionArn];
      if (!isFunctionId(functionId) || !versionArn) {
        throw new Error(
          `${HOOK_ENV.functionId} and ${HOOK_ENV.versionArn} must name a service function and its version`,
        );
      }
      return { functionId, versionArn };
    },
    invoke: async (arn, event, abortSignal) => {
      const out = await lambda.send(
        new InvokeCommand({ FunctionName: arn, Payload: Buffer.from(JSON.stringify(event)) }),
        {
          abortSignal,
        },
      );
      return { payload: out.Payload ?? new Uint8Array(), functionError: out.FunctionError };
    },
    // Read on each run, not kept: a key stored or rotated since the container started is used.
    canaryKey: async (abortSignal) => {
      const secretId = env[HOOK_ENV.canaryKeySecret];
      if (!secretId) throw new Error(`${HOOK_ENV.canaryKeySecret} names no secret`);
      return (await readSecret(secretId, { abortSignal })).trim();
    },
    report: async (event, status, abortSignal) => {
      await codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({
          deploymentId: event.DeploymentId,
          lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
          status,
        }),
        { abortSignal },
      );
    },
  };
}

let hook: ReturnType<typeof makeReleaseHook> | undefined;

export const handler = async (event: HookEvent, context: Context): Promise<'Succeeded' | 'Failed'> => {
  hook ??= makeReleaseHook(hookDepsFromEnvironment());
  return hook(event, context);
};
