// How a new version of the functions reaches callers: CodeDeploy first runs the function's
// pre-traffic hook against the version the stack update published, then shifts the live alias to
// it by the stage's canary, and points it back when the hook reports Failed or one of the
// function's rollback alarms (on the new version alone) fires.
import { Duration, Tags, type RemovalPolicy } from 'aws-cdk-lib/core';
import {
  AlarmStatusWidget,
  GraphWidget,
  MathExpression,
  TextWidget,
  type Dashboard,
  type IAlarm,
} from 'aws-cdk-lib/aws-cloudwatch';
import {
  LambdaApplication,
  LambdaDeploymentConfig,
  LambdaDeploymentGroup,
  TrafficRouting,
} from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { CANARY_KEY_SECRET_TAG, type FunctionId, type StageName } from '../../lib/contract/deployment';
import type { ReleaseConfig } from '../stages';
import { pascalCase } from './names';
import { ReleaseHook } from './release-hook';

/** AWS's policy for CodeDeploy's Lambda deployments: read alarms, move aliases, nothing more. */
export const CODEDEPLOY_LAMBDA_POLICY = 'service-role/AWSCodeDeployRoleForLambdaLimited';

export interface ServiceReleasesProps {
  stage: StageName;
  release: ReleaseConfig;
  /** Each function's live alias, with the alarms that roll a release of it back. */
  functions: Record<FunctionId, { alias: Alias; rollbackAlarms: IAlarm[] }>;
  /** The hooks' own logs. */
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
}

export class ServiceReleases extends Construct {
  readonly application: LambdaApplication;
  /** The one role CodeDeploy shifts the aliases with, for all the functions' deployment groups. */
  readonly role: Role;
  readonly deploymentConfig: LambdaDeploymentConfig;
  readonly groups = {} as Record<FunctionId, LambdaDeploymentGroup>;
  /** Each function's pre-traffic hook, which invokes the version its group is about to shift to. */
  readonly hooks = {} as Record<FunctionId, ReleaseHook>;
  /**
   * The stage's release canary key: a real API key (free plan, read scope) whose plaintext the admin
   * command stores here after the first deploy (`canary-key create`, docs/operations.md#the-release-canary-key),
   * so the authorizer's hook can check that the new version allows a valid key. Created with a
   * generated placeholder, which the hook refuses to use (and the deploy preflight refuses a stage
   * whose secret still holds it).
   */
  readonly canaryKey: Secret;
  private readonly props: ServiceReleasesProps;

  constructor(scope: Construct, id: string, props: ServiceReleasesProps) {
    super(scope, id);
    this.props = props;
    this.application = new LambdaApplication(this, 'Application', {
      applicationName: `store-orders-${props.stage}`,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('codedeploy.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName(CODEDEPLOY_LAMBDA_POLICY)],
    });
    const { release } = props;
    this.deploymentConfig = new LambdaDeploymentConfig(this, 'Canary', {
      trafficRouting: TrafficRouting.timeBasedCanary({
        percentage: release.percent,
        interval: Duration.minutes(release.minutes),
      }),
    });
    this.canaryKey = new Secret(this, 'CanaryKey', {
      description: `Release canary API key of store-orders-${props.stage}, which the authorizer's pre-traffic hook authorizes`,
      removalPolicy: props.logRemovalPolicy,
    });
    // Names the secret's stage in IAM conditions: the deploy role stores this stage's key alone.
    Tags.of(this.canaryKey).add(CANARY_KEY_SECRET_TAG, props.stage);
    for (const [name, { alias, rollbackAlarms }] of Object.entries(props.functions) as [
      FunctionId,
      ServiceReleasesProps['functions'][FunctionId],
    ][]) {
      const hook = new ReleaseHook(this, `${pascalCase(name)}Hook`, {
        functionId: name,
        stage: props.stage,
        version: alias.version,
        ...(name === 'authorizer' ? { canaryKey: this.canaryKey } : {}),
        logRetention: props.logRetention,
        logRemovalPolicy: props.logRemovalPolicy,
      });
      this.hooks[name] = hook;
      // The group also sets the alias's UpdatePolicy, so CloudFormation hands the alias change to
      // CodeDeploy; the stack update waits for the hook and the traffic shift and fails (and rolls
      // back) with them. It lets CodeDeploy invoke the hook and the hook report to this group only.
      this.groups[name] = new LambdaDeploymentGroup(this, pascalCase(name), {
        application: this.application,
        role: this.role,
        alias,
        deploymentConfig: this.deploymentConfig,
        alarms: rollbackAlarms,
        preHook: hook.function,
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
      // The hook must name the new version before CodeDeploy runs it, and the new version's own
      // rollback alarms must exist, named in its deployment group, before the alias update starts
      // the traffic shift they watch (service-alarms.ts, addRollback).
      alias.node.addDependency(hook.function, this.groups[name], ...rollbackAlarms);
    }
  }

  /**
   * A row to watch a release by: each function's calls and errors split by the version that ran
   * them (during a canary, the old and the new one side by side), and the rollback alarms.
   */
  addToDashboard(dashboard: Dashboard): void {
    const functions = Object.entries(this.props.functions) as [
      FunctionId,
      ServiceReleasesProps['functions'][FunctionId],
    ][];
    const byVersion = (metricName: string) =>
      functions.map(
        ([name, { alias }]) =>
          new MathExpression({
            expression: `SEARCH('{AWS/Lambda,ExecutedVersion,FunctionName,Resource} MetricName="${metricName}" FunctionName="${alias.lambda.functionName}"', 'Sum', 60)`,
            usingMetrics: {},
            label: `${name} v\${PROP('Dim.ExecutedVersion')}`,
            period: Duration.minutes(1),
          }),
      );
    const release = this.props.release;
    dashboard.addWidgets(
      new TextWidget({
        markdown:
          `### Releases (CodeDeploy application \`${this.application.applicationName}\`)\n` +
          'A pre-traffic hook first checks the new version with synthetic requests; ' +
          `then it gets ${release.percent}% of the calls for ${release.minutes} minutes, then all of them; ` +
          'a rollback alarm on the new version in ALARM during the shift points the alias back to the old version.',
        width: 24,
        height: 2,
      }),
    );
    dashboard.addWidgets(
      new GraphWidget({ title: 'Invocations by version (1 min)', left: byVersion('Invocations'), width: 8, height: 6 }),
      new GraphWidget({ title: 'Errors by version (1 min)', left: byVersion('Errors'), width: 8, height: 6 }),
      new AlarmStatusWidget({
        title: 'Rollback alarms',
        alarms: functions.flatMap(([, { rollbackAlarms }]) => rollbackAlarms),
        width: 8,
        height: 6,
      }),
    );
  }
}
