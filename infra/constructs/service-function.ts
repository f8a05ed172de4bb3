import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Alias, Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import { FUNCTIONS, type FunctionId, type StageName } from '../../lib/contract/deployment';
import { BUNDLING, functionEntry, HANDLER_EXPORT, REPO_ROOT } from '../functions';
import { NODE_FLAGS_WRAPPER, nodeFlagsEnvironment } from '../runtime/lambda-node';

/**
 * The alias API Gateway invokes (routes and authorizer alike): CodeDeploy moves it from one published
 * version to the next, so a release can be shifted gradually and rolled back without touching the API.
 */
export const LIVE_ALIAS = 'live';

export interface ServiceFunctionProps {
  /** The entry file is `functions/<entry>.ts`; memory, timeout and description come from lib/contract/deployment.ts. */
  entry: FunctionId;
  /** The stage the function serves; its business metrics carry it as a dimension. */
  stage: StageName;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** Concurrent executions reserved for (and the most allowed to) the function; none if unset. */
  reservedConcurrency?: number;
}

/**
 * The one way this service builds a Lambda function, so every handler gets the same runtime,
 * bundling, tracing and logging. Bundling runs the locally installed esbuild: no Docker, no network.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  /** What callers invoke: `live`, on the version published from the current code and settings. */
  readonly alias: Alias;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const settings = FUNCTIONS[props.entry];
    const nodeFlags = settings.nodeFlags ?? [];
    this.logGroup = new LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: props.logRemovalPolicy,
    });
    // Instead of AWSLambdaBasicExecutionRole (create any log group, write to all of them), the
    // function may write to its own log group only.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    this.function = new NodejsFunction(this, 'Function', {
      role: this.role,
      entry: functionEntry(props.entry),
      handler: HANDLER_EXPORT,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      description: settings.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: settings.memoryMb,
      timeout: Duration.seconds(settings.timeoutSeconds),
      reservedConcurrentExecutions: props.reservedConcurrency,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
        [STAGE_ENV_VAR]: props.stage,
        ...(nodeFlags.length ? nodeFlagsEnvironment(nodeFlags) : {}),
      },
      bundling: {
        format: OutputFormat.ESM,
        target: BUNDLING.target,
        mainFields: [...BUNDLING.mainFields],
        banner: BUNDLING.banner,
        minify: BUNDLING.minify,
        sourceMap: BUNDLING.sourceMap,
        bundleAwsSDK: true,
        externalModules: [...BUNDLING.external],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
        ...(nodeFlags.length ? { commandHooks: wrapperHooks() } : {}),
      },
    });
    // currentVersion is a new AWS::Lambda::Version whenever the code or a versioned setting
    // (memory, timeout, environment...) changes, as its logical id carries a hash of them. The
    // previous version is deleted only in the cleanup after a successful update, so it is there for
    // the canary and for any rollback, and versions do not pile up.
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.function.currentVersion });
  }
}

/** Copies the node-flags wrapper into the bundle, executable: Lambda runs it from the code's root. */
function wrapperHooks(): ICommandHooks {
  const target = (outputDir: string) => JSON.stringify(path.join(outputDir, NODE_FLAGS_WRAPPER.fileName));
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (_inputDir, outputDir) => [
      `cp ${JSON.stringify(NODE_FLAGS_WRAPPER.source)} ${target(outputDir)}`,
      `chmod 755 ${target(outputDir)}`,
    ],
  };
}
