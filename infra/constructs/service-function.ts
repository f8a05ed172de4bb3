import * as path from 'node:path';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib/core';
import type { Role } from 'aws-cdk-lib/aws-iam';
import { Alias } from 'aws-cdk-lib/aws-lambda';
import type { ICommandHooks, NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import { FUNCTIONS, type EntryId, type StageName } from '../../lib/contract/deployment';
import { functionEntry } from '../functions';
import { bundledFunction } from './bundled-function';
import { NODE_FLAGS_WRAPPER, nodeFlagsEnvironment } from '../runtime/lambda-node';
import { stableSourceMapCommand } from './stable-bundle';

/**
 * The alias API Gateway invokes (routes and authorizer alike): CodeDeploy moves it from one published
 * version to the next, so a release can be shifted gradually and rolled back without touching the API.
 */
export const LIVE_ALIAS = 'live';

export interface ServiceFunctionProps {
  /** The entry file is `functions/<entry>.ts`; memory, timeout and description come from lib/contract/deployment.ts. */
  entry: EntryId;
  /** The stage the function serves; its business metrics carry it as a dimension. */
  stage: StageName;
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** Concurrent executions reserved for (and the most allowed to) the function; none if unset. */
  reservedConcurrency?: number;
  /** Settings of the stage the function reads from its environment, besides the common ones. */
  environment?: Record<string, string>;
}

/**
 * A handler of the service: built the project's one way (bundledFunction), with its settings from
 * lib/contract/deployment.ts and the `live` alias releases move.
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
    ({
      function: this.function,
      role: this.role,
      logGroup: this.logGroup,
    } = bundledFunction(this, {
      entry: functionEntry(props.entry),
      description: settings.description,
      memorySize: settings.memoryMb,
      timeout: Duration.seconds(settings.timeoutSeconds),
      ...(props.reservedConcurrency === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrency }),
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        POWERTOOLS_LOG_LEVEL: 'INFO',
        NODE_OPTIONS: '--enable-source-maps',
        [STAGE_ENV_VAR]: props.stage,
        ...(nodeFlags.length ? nodeFlagsEnvironment(nodeFlags) : {}),
        ...props.environment,
      },
      commandHooks: bundleHooks(nodeFlags.length > 0),
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    }));
    // currentVersion is a new AWS::Lambda::Version whenever the code or a versioned setting
    // (memory, timeout, environment...) changes, as its logical id carries a hash of them. The
    // previous version is deleted only in the cleanup after a successful update, so it is there for
    // the canary and for any rollback, and versions do not pile up.
    this.alias = new Alias(this, 'Live', { aliasName: LIVE_ALIAS, version: this.function.currentVersion });
  }
}

/**
 * Makes the source maps independent of the synth folder, and copies the node-flags wrapper into
 * the bundle, executable, when the function has flags: Lambda runs it from the code's root.
 */
function bundleHooks(withWrapper: boolean): ICommandHooks {
  const target = (outputDir: string) => JSON.stringify(path.join(outputDir, NODE_FLAGS_WRAPPER.fileName));
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => [
      stableSourceMapCommand(inputDir, outputDir),
      ...(withWrapper
        ? [`cp ${JSON.stringify(NODE_FLAGS_WRAPPER.source)} ${target(outputDir)}`, `chmod 755 ${target(outputDir)}`]
        : []),
    ],
  };
}
