// The pre-traffic hook of one function's deployment group (CodeDeploy's BeforeAllowTrafficHook):
// it invokes the version the release is about to shift the alias to, directly, with the function's
// synthetic requests, and reports Failed on any wrong answer, which stops the release and rolls it
// back before a single call has moved. Its environment names the function and the version, and for
// the authorizer the secret holding the stage's canary key.
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { logger } from '../../lib/commons/logger';
import { isFunctionId, type FunctionId } from '../../lib/contract/deployment';
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

export interface HookDeps {
  /** The function and version to check; throws when the environment names none. */
  target(): HookTarget;
  invoke(versionArn: string, event: unknown): Promise<InvokeAnswer>;
  /** The stage's canary key, for the checks that need a real key. */
  canaryKey(): Promise<string>;
  report(event: HookEvent, status: 'Succeeded' | 'Failed'): Promise<void>;
  /** The checks of each function; RELEASE_CHECKS unless given. */
  checks?: Record<FunctionId, readonly ReleaseCheck[]>;
}

/**
 * Runs every check of the function; reports Failed on the first wrong answer, failed call, or
 * anything that throws. The report is made in a `finally`: a hook that threw before reporting would
 * leave CodeDeploy waiting for a status until its lifecycle-event timeout (an hour), longer than a
 * deploy job waits.
 */
export function makeReleaseHook(deps: HookDeps) {
  return async (event: HookEvent): Promise<'Succeeded' | 'Failed'> => {
    let status: 'Succeeded' | 'Failed' = 'Failed';
    try {
      status = await runChecks(deps);
    } catch (error) {
      logger.error('release check could not run', { error: errorMessage(error) });
      status = 'Failed';
    } finally {
      await deps.report(event, status);
    }
    return status;
  };
}

async function runChecks(deps: HookDeps): Promise<'Succeeded' | 'Failed'> {
  const { functionId, versionArn } = deps.target();
  for (const check of (deps.checks ?? RELEASE_CHECKS)[functionId]) {
    // A check that cannot be prepared (no canary key) throws: the release fails, reported.
    const { event, judge } = await check.prepare({ canaryKey: deps.canaryKey });
    let wrong: string | undefined;
    try {
      wrong = judge(await deps.invoke(versionArn, event));
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

/** The hook's dependencies from its environment; reading it is left to the checks, so a bad one is reported. */
function fromEnvironment(env: NodeJS.ProcessEnv = process.env): HookDeps {
  const lambda = new LambdaClient({});
  const codeDeploy = new CodeDeployClient({});
  const readSecret = secretsManagerReader();
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
    invoke: async (arn, event) => {
      const out = await lambda.send(
        new InvokeCommand({ FunctionName: arn, Payload: Buffer.from(JSON.stringify(event)) }),
      );
      return { payload: out.Payload ?? new Uint8Array(), functionError: out.FunctionError };
    },
    // Read on each run, not kept: a key stored or rotated since the container started is used.
    canaryKey: async () => {
      const secretId = env[HOOK_ENV.canaryKeySecret];
      if (!secretId) throw new Error(`${HOOK_ENV.canaryKeySecret} names no secret`);
      return (await readSecret(secretId)).trim();
    },
    report: async (event, status) => {
      await codeDeploy.send(
        new PutLifecycleEventHookExecutionStatusCommand({
          deploymentId: event.DeploymentId,
          lifecycleEventHookExecutionId: event.LifecycleEventHookExecutionId,
          status,
        }),
      );
    },
  };
}

let hook: ((event: HookEvent) => Promise<'Succeeded' | 'Failed'>) | undefined;

export const handler = async (event: HookEvent): Promise<'Succeeded' | 'Failed'> => {
  hook ??= makeReleaseHook(fromEnvironment());
  return hook(event);
};
