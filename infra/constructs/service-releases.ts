// How a new version of the functions reaches callers: CodeDeploy shifts each function's live alias
// to the version the stack update published, as the stage's release setting says, and points it
// back when one of the function's rollback alarms fires.
import { Duration } from 'aws-cdk-lib/core';
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
  type ILambdaDeploymentConfig,
} from 'aws-cdk-lib/aws-codedeploy';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Alias } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { FunctionId, StageName } from '../../lib/contract/deployment';
import type { ReleaseConfig } from '../stages';
import { pascalCase } from './names';

/** AWS's policy for CodeDeploy's Lambda deployments: read alarms, move aliases, nothing more. */
export const CODEDEPLOY_LAMBDA_POLICY = 'service-role/AWSCodeDeployRoleForLambdaLimited';

export interface ServiceReleasesProps {
  stage: StageName;
  release: ReleaseConfig;
  /** Each function's live alias, with the alarms that roll a release of it back. */
  functions: Record<FunctionId, { alias: Alias; rollbackAlarms: IAlarm[] }>;
}

export class ServiceReleases extends Construct {
  readonly application: LambdaApplication;
  /** The one role CodeDeploy shifts the aliases with, for all the functions' deployment groups. */
  readonly role: Role;
  readonly deploymentConfig: ILambdaDeploymentConfig;
  readonly groups = {} as Record<FunctionId, LambdaDeploymentGroup>;
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
    this.deploymentConfig =
      release.type === 'canary'
        ? new LambdaDeploymentConfig(this, 'Canary', {
            trafficRouting: TrafficRouting.timeBasedCanary({
              percentage: release.percent,
              interval: Duration.minutes(release.minutes),
            }),
          })
        : LambdaDeploymentConfig.ALL_AT_ONCE;
    for (const [name, { alias, rollbackAlarms }] of Object.entries(props.functions) as [
      FunctionId,
      ServiceReleasesProps['functions'][FunctionId],
    ][]) {
      // The group also sets the alias's UpdatePolicy, so CloudFormation hands the alias change to
      // CodeDeploy; the stack update waits for the traffic shift and fails (and rolls back) with it.
      this.groups[name] = new LambdaDeploymentGroup(this, pascalCase(name), {
        application: this.application,
        role: this.role,
        alias,
        deploymentConfig: this.deploymentConfig,
        alarms: rollbackAlarms,
        autoRollback: { failedDeployment: true, stoppedDeployment: true, deploymentInAlarm: true },
      });
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
          (release.type === 'canary'
            ? `A new version gets ${release.percent}% of the calls for ${release.minutes} minutes, then all of them; `
            : 'A new version gets all the calls at once; ') +
          'a rollback alarm in ALARM during the shift points the alias back to the old version.',
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
