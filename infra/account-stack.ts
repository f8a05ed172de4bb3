import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnAccount } from 'aws-cdk-lib/aws-apigateway';
import { ManagedPolicy, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { explainAccountNagFindings } from './nag';

/**
 * API Gateway's account settings, a singleton per account and region: the CloudWatch role that
 * execution logging needs. One stack owns it, so stages never overwrite each other's setting or
 * orphan a role each time one is recreated. Every stage stack depends on it, so `cdk deploy` of a
 * stage deploys it first.
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
    explainAccountNagFindings(this);
  }
}
