import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IVersion } from 'aws-cdk-lib/aws-lambda';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { SECRET_READ_ACTION } from '../../lib/contract/secrets';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lib/commons/service';
import { RELEASE_HOOK_TIMEOUT_SECONDS, type FunctionId, type StageName } from '../../lib/contract/deployment';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { REPO_ROOT } from '../functions';
import { bundledFunction } from './bundled-function';
import { HOOK_ENV } from '../release-hook/handler';
import { stableSourceMapHooks } from './stable-bundle';

export interface ReleaseHookProps {
  functionId: FunctionId;
  stage: StageName;
  /** The version a release shifts the alias to: the one the hook invokes. */
  version: IVersion;
  /** The secret holding the stage's canary key, for a hook whose checks need a real key (the authorizer's). */
  canaryKey?: ISecret;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

/**
 * Each check is one short call; the slowest is a cold start of the new version. The hook bounds its
 * calls from this timeout and reports before it (infra/release-hook/handler.ts, HOOK_BOUNDS).
 */
const HOOK_TIMEOUT = Duration.seconds(RELEASE_HOOK_TIMEOUT_SECONDS);

/**
 * The pre-traffic hook of one function (infra/release-hook/handler.ts). It may invoke that
 * version and nothing else, read the canary key's secret if it is given one, and report its result.
 */
export class ReleaseHook extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ReleaseHookProps) {
    super(scope, id);
    ({
      function: this.function,
      role: this.role,
      logGroup: this.logGroup,
    } = bundledFunction(this, {
      entry: path.join(REPO_ROOT, 'infra', 'release-hook', 'handler.ts'),
      description: `Release check of ${props.functionId}: invokes the new version with synthetic requests before traffic moves`,
      memorySize: 256,
      timeout: HOOK_TIMEOUT,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        [STAGE_ENV_VAR]: props.stage,
        [HOOK_ENV.functionId]: props.functionId,
        [HOOK_ENV.versionArn]: props.version.functionArn,
        ...(props.canaryKey ? { [HOOK_ENV.canaryKeySecret]: props.canaryKey.secretArn } : {}),
      },
      commandHooks: stableSourceMapHooks(),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));
    props.version.grantInvoke(this.role);
    // Its report: the Service Authorization Reference gives PutLifecycleEventHookExecutionStatus no
    // resource type (list_awscodedeploy.html), so IAM matches it only with "*", and the deployment
    // group's own grant on its ARN (CDK's, for preHook) may match nothing. The call names the
    // deployment and hook execution ids CodeDeploy gives the hook in its event.
    this.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['codedeploy:PutLifecycleEventHookExecutionStatus'], resources: ['*'] }),
    );
    if (props.canaryKey)
      this.role.addToPrincipalPolicy(
        new PolicyStatement({ actions: [SECRET_READ_ACTION], resources: [props.canaryKey.secretArn] }),
      );
  }
}
