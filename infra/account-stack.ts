import { CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib/core';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { CLOUDWATCH_ROLE_OUTPUT } from '../lib/contract/deployment';
import { explainAccountNagFindings } from './nag';

/**
 * API Gateway's account settings, a singleton per account and region: the CloudWatch role that
 * execution logging needs. One stack owns it, so stages never overwrite each other's setting or
 * orphan a role each time one is recreated. Every stage stack depends on it, so `cdk deploy` of a
 * stage deploys it first, and its template reads the role from this stack's output, so a stage
 * template deployed on its own fails at once, naming this stack. Only synthesised in `create`
 * mode: CloudFormation cannot read the setting, so it would overwrite another project's role.
 */
export class ApiGatewayAccountStack extends Stack {
  readonly cloudWatchRole: Role;

  constructor(scope: Construct, id: string, props: StackProps = {}) {
    super(scope, id, { description: 'Store Orders API: API Gateway account settings (CloudWatch role)', ...props });
    this.cloudWatchRole = new Role(this, 'CloudWatchRole', {
      assumedBy: new ServicePrincipal('apigateway.amazonaws.com'),
      managedPolicies: [ManagedPolicy.fromAwsManagedPolicyName('service-role/AmazonAPIGatewayPushToCloudWatchLogs')],
    });
    // The account setting outlives the stack (CloudFormation cannot unset it), so the role it names does too.
    this.cloudWatchRole.applyRemovalPolicy(RemovalPolicy.RETAIN);
    const account = new CfnAccount(this, 'Account', { cloudWatchRoleArn: this.cloudWatchRole.roleArn });
    account.node.addDependency(this.cloudWatchRole);
    new CfnOutput(this, CLOUDWATCH_ROLE_OUTPUT, {
      value: this.cloudWatchRole.roleArn,
      description: "The role API Gateway's execution logging in this account and Region uses",
    });
    explainAccountNagFindings(this.cloudWatchRole);
  }
}
