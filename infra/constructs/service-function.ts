import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { FunctionName } from '../../lib/contract/routes';
import { SERVICE_NAME } from '../../lib/aws/service';

export type EntryName = FunctionName | 'authorizer';

// The CDK app runs as ESM (tsx) and the tests as CommonJS (jest), so both ways of finding this file are needed.
const HERE = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..', '..');
export const FUNCTIONS_DIR = path.join(REPO_ROOT, 'functions');

export const HANDLER_EXPORT = 'handler';

/**
 * A bundled ESM file cannot `require`, yet some bundled CommonJS dependencies still call it; the
 * banner gives them one. The alias avoids clashing with a createRequire import in the bundle.
 */
const REQUIRE_SHIM =
  "import { createRequire as __storeOrdersCreateRequire } from 'node:module';" +
  'const require = __storeOrdersCreateRequire(import.meta.url);';

export interface ServiceFunctionProps {
  /** The entry file is `functions/<entry>.ts` and exports `handler`. */
  entry: EntryName;
  memorySize: number;
  timeout: Duration;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  description: string;
}

/**
 * The one way this service builds a Lambda function, so every handler gets the same runtime,
 * bundling, tracing and logging. Bundling runs the locally installed esbuild: no Docker, no network.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
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
      entry: path.join(FUNCTIONS_DIR, `${props.entry}.ts`),
      handler: HANDLER_EXPORT,
      projectRoot: REPO_ROOT,
      depsLockFilePath: path.join(REPO_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup: this.logGroup,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: REQUIRE_SHIM,
        minify: true,
        sourceMap: true,
        // The SDK is bundled rather than taken from the runtime, so the deployed code runs the
        // exact SDK version the tests ran, and the bundle is self-contained.
        bundleAwsSDK: true,
        externalModules: [],
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });
  }
}
