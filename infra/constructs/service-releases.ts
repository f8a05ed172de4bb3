// How a new version of the functions reaches callers: CodeDeploy shifts each function's live alias
// to the version the stack update published, as the stage's release setting says, and points it
// back when one of the function's rollback alarms fires.
import { Duration } from 'aws-cdk-lib';
import type { IAlarm } from 'aws-cdk-lib/aws-cloudwatch';
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
import type { FunctionId } from '../functions';
import type { StageName } from '../outputs';
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

  constructor(scope: Construct, id: string, props: ServiceReleasesProps) {
    super(scope, id);
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
}
