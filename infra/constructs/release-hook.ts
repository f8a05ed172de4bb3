import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing, type IVersion } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { SERVICE_NAME } from '../../lib/commons/service';
import type { FunctionId, StageName } from '../../lib/contract/deployment';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { BUNDLING, HANDLER_EXPORT, REPO_ROOT } from '../functions';
import { HOOK_ENV } from '../release-hook/handler';
import { stableSourceMapHooks } from './stable-bundle';

export interface ReleaseHookProps {
  functionId: FunctionId;
  stage: StageName;
  /** The version a release shifts the alias to: the one the hook invokes. */
  version: IVersion;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

/** Each check is one short call; the slowest is a cold start of the new version. */
const HOOK_TIMEOUT = Duration.seconds(60);

/**
 * The pre-traffic hook of one function (infra/release-hook/handler.ts). It may invoke that
 * version and nothing else; the deployment group lets it report to that group only.
 */
export class ReleaseHook extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ReleaseHookProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    this.function = new NodejsFunction(this, 'Function', {
      role: this.role,
      entry: path.join(REPO_ROOT, 'infra', 'release-hook', 'handler.ts'),
      handler: HANDLER_EXPORT,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      description: `Release check of ${props.functionId}: invokes the new version with synthetic requests before traffic moves`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: 256,
      timeout: HOOK_TIMEOUT,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        [STAGE_ENV_VAR]: props.stage,
        [HOOK_ENV.functionId]: props.functionId,
        [HOOK_ENV.versionArn]: props.version.functionArn,
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLING.target,
        mainFields: [...BUNDLING.mainFields],
        banner: BUNDLING.banner,
        minify: BUNDLING.minify,
        sourceMap: BUNDLING.sourceMap,
        bundleAwsSDK: true,
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
        commandHooks: stableSourceMapHooks(),
      },
    });
    props.version.grantInvoke(this.role);
  }
}
