// The pre-traffic hook of one function's deployment group (CodeDeploy's BeforeAllowTrafficHook):
// it invokes the version the release is about to shift the alias to, directly, with the function's
// synthetic requests, and reports Failed on any wrong answer, which stops the release and rolls it
// back before a single call has moved. Its environment names the function and the version.
import { CodeDeployClient, PutLifecycleEventHookExecutionStatusCommand } from '@aws-sdk/client-codedeploy';
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { logger } from '../../lib/commons/logger';
import { isFunctionId, type FunctionId } from '../../lib/contract/deployment';
import { RELEASE_CHECKS, type InvokeAnswer } from './checks';

/** The environment variables the stack gives the hook. */
export const HOOK_ENV = { functionId: 'RELEASE_FUNCTION_ID', versionArn: 'RELEASE_VERSION_ARN' } as const;

export interface HookEvent {
  DeploymentId: string;
  LifecycleEventHookExecutionId: string;
}

export interface HookDeps {
  functionId: FunctionId;
  versionArn: string;
  invoke(versionArn: string, event: unknown): Promise<InvokeAnswer>;
  report(event: HookEvent, status: 'Succeeded' | 'Failed'): Promise<void>;
}

/** Runs every check of the function; reports Failed on the first wrong answer or failed call. */
export function makeReleaseHook(deps: HookDeps) {
  return async (event: HookEvent): Promise<'Succeeded' | 'Failed'> => {
    let status: 'Succeeded' | 'Failed' = 'Succeeded';
    for (const check of RELEASE_CHECKS[deps.functionId]) {
      let wrong: string | undefined;
      try {
        wrong = check.judge(await deps.invoke(deps.versionArn, check.event));
      } catch (error) {
        wrong = `the invocation failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (wrong) {
        logger.error('release check failed', { check: check.name, wrong, version: deps.versionArn });
        status = 'Failed';
        break;
      }
      logger.info('release check passed', { check: check.name, version: deps.versionArn });
    }
    await deps.report(event, status);
    return status;
  };
}

function fromEnvironment(): HookDeps {
  const functionId = process.env[HOOK_ENV.functionId];
  const versionArn = process.env[HOOK_ENV.versionArn];
  if (!isFunctionId(functionId) || !versionArn) {
    throw new Error(`${HOOK_ENV.functionId} and ${HOOK_ENV.versionArn} must name a service function and its version`);
  }
  const lambda = new LambdaClient({});
  const codeDeploy = new CodeDeployClient({});
  return {
    functionId,
    versionArn,
    invoke: async (arn, event) => {
      const out = await lambda.send(
        new InvokeCommand({ FunctionName: arn, Payload: Buffer.from(JSON.stringify(event)) }),
      );
      return { payload: out.Payload ?? new Uint8Array(), functionError: out.FunctionError };
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
