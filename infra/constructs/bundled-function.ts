import * as path from 'node:path';
import type { Duration, RemovalPolicy } from 'aws-cdk-lib/core';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { BUNDLING, HANDLER_EXPORT, LAMBDA_RUNTIME_NAME, REPO_ROOT } from '../functions';

/** CDK's runtime of that name: one CDK knows, so the bundler and cdk-nag treat it as Node.js. */
const RUNTIME = (() => {
  const runtime = Runtime.ALL.find((r) => r.name === LAMBDA_RUNTIME_NAME);
  if (!runtime) throw new Error(`aws-cdk-lib knows no Lambda runtime ${LAMBDA_RUNTIME_NAME}`);
  return runtime;
})();

export interface BundledFunctionProps {
  /** The TypeScript entry file, bundled with the locally installed esbuild: no Docker, no network. */
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  environment: Record<string, string>;
  commandHooks: ICommandHooks;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  reservedConcurrentExecutions?: number;
}

export interface BundledFunction {
  function: NodejsFunction;
  role: Role;
  logGroup: LogGroup;
}

/**
 * The one way this project builds a Lambda function (the service's handlers and the release hooks
 * alike): the same runtime, bundling and tracing, and a log group and role of its own. Instead of
 * AWSLambdaBasicExecutionRole (create any log group, write to all of them), the function may write
 * to its own log group only.
 */
export function bundledFunction(scope: Construct, props: BundledFunctionProps): BundledFunction {
  const logGroup = new LogGroup(scope, 'Logs', {
    retention: props.logRetention,
    removalPolicy: props.logRemovalPolicy,
  });
  const role = new Role(scope, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
  logGroup.grantWrite(role);
  const fn = new NodejsFunction(scope, 'Function', {
    role,
    entry: props.entry,
    handler: HANDLER_EXPORT,
    projectRoot: REPO_ROOT,
    depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
    description: props.description,
    runtime: RUNTIME,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize,
    timeout: props.timeout,
    ...(props.reservedConcurrentExecutions === undefined
      ? {}
      : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
    tracing: Tracing.ACTIVE,
    logGroup,
    environment: props.environment,
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
      commandHooks: props.commandHooks,
    },
  });
  return { function: fn, role, logGroup };
}
