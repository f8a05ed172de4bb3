// What CloudFormation calls, with a stage's execution role's credentials, to create, update and
// delete each resource type a stage stack declares: the `handlers` permissions of the type's
// schema in the CloudFormation registry (`aws cloudformation describe-type --type RESOURCE
// --type-name <type>`), with each action's resource types as the Service Authorization Reference
// lists them (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html).
// The account and pipeline stacks are deployed by an administrator, not through an execution
// policy: their types are not here. infra/pipeline/execution-policy.ts grants the actions without
// a resource type from here; test/infra/pipeline-permissions.spec.ts checks that no type a stage
// synthesises is missing, test/infra/policy-actions.spec.ts that every action exists and sits on
// the right side (with or without a resource type), and test/infra/stage-isolation.spec.ts that
// each stage's execution role is allowed every action of its stage's types, on that stage's names.

import { SCHEDULE_ACTIONS } from './schedule-permissions';

export interface ResourceTypeActions {
  /** Create, update and delete, on the resource's own ARN (or API Gateway's path). */
  actions: readonly string[];
  /**
   * Actions the Service Authorization Reference lists with no resource type: IAM only matches them
   * with `"Resource": "*"`, so a grant scoped to an ARN never allows them.
   */
  withoutResourceType?: readonly string[];
}

/** API Gateway authorizes by HTTP verb on the resource's path (list_amazonapigatewaymanagement.html). */
const API_GATEWAY: ResourceTypeActions = {
  actions: ['apigateway:GET', 'apigateway:POST', 'apigateway:PUT', 'apigateway:PATCH', 'apigateway:DELETE'],
};

const LOG_TAGS = ['logs:TagResource', 'logs:UntagResource', 'logs:ListTagsForResource'];

export const RESOURCE_TYPE_ACTIONS: Record<string, ResourceTypeActions> = {
  'AWS::ApiGateway::Authorizer': API_GATEWAY,
  'AWS::ApiGateway::BasePathMapping': API_GATEWAY,
  'AWS::ApiGateway::Deployment': API_GATEWAY,
  'AWS::ApiGateway::DomainName': API_GATEWAY,
  'AWS::ApiGateway::GatewayResponse': API_GATEWAY,
  'AWS::ApiGateway::Method': API_GATEWAY,
  'AWS::ApiGateway::Resource': API_GATEWAY,
  'AWS::ApiGateway::RestApi': API_GATEWAY,
  'AWS::ApiGateway::Stage': API_GATEWAY,
  'AWS::ApiGateway::UsagePlan': API_GATEWAY,
  'AWS::CertificateManager::Certificate': {
    actions: ['acm:DescribeCertificate', 'acm:DeleteCertificate', 'acm:AddTagsToCertificate'],
    // The certificate's ARN exists only once it is requested (list_awscertificatemanager.html).
    withoutResourceType: ['acm:RequestCertificate'],
  },
  'AWS::CloudWatch::Alarm': {
    actions: [
      'cloudwatch:PutMetricAlarm',
      'cloudwatch:DescribeAlarms',
      'cloudwatch:DeleteAlarms',
      'cloudwatch:TagResource',
      'cloudwatch:UntagResource',
      'cloudwatch:ListTagsForResource',
    ],
  },
  'AWS::CloudWatch::Dashboard': {
    actions: ['cloudwatch:PutDashboard', 'cloudwatch:GetDashboard', 'cloudwatch:DeleteDashboards'],
  },
  'AWS::CodeDeploy::Application': {
    actions: [
      'codedeploy:CreateApplication',
      'codedeploy:GetApplication',
      'codedeploy:DeleteApplication',
      'codedeploy:TagResource',
      'codedeploy:UntagResource',
      'codedeploy:ListTagsForResource',
    ],
  },
  'AWS::CodeDeploy::DeploymentConfig': {
    actions: [
      'codedeploy:CreateDeploymentConfig',
      'codedeploy:GetDeploymentConfig',
      'codedeploy:DeleteDeploymentConfig',
    ],
  },
  'AWS::CodeDeploy::DeploymentGroup': {
    // Its service role is passed to CodeDeploy.
    actions: [
      'codedeploy:CreateDeploymentGroup',
      'codedeploy:GetDeploymentGroup',
      'codedeploy:UpdateDeploymentGroup',
      'codedeploy:DeleteDeploymentGroup',
      'iam:PassRole',
    ],
  },
  'AWS::DynamoDB::Table': {
    actions: [
      'dynamodb:CreateTable',
      'dynamodb:DescribeTable',
      'dynamodb:UpdateTable',
      'dynamodb:DeleteTable',
      'dynamodb:DescribeContinuousBackups',
      'dynamodb:UpdateContinuousBackups',
      'dynamodb:DescribeTimeToLive',
      'dynamodb:UpdateTimeToLive',
      'dynamodb:DescribeContributorInsights',
      'dynamodb:UpdateContributorInsights',
      'dynamodb:DescribeKinesisStreamingDestination',
      'dynamodb:TagResource',
      'dynamodb:UntagResource',
      'dynamodb:ListTagsOfResource',
    ],
  },
  'AWS::IAM::Policy': { actions: ['iam:PutRolePolicy', 'iam:GetRolePolicy', 'iam:DeleteRolePolicy'] },
  'AWS::IAM::Role': {
    actions: [
      'iam:CreateRole',
      'iam:GetRole',
      'iam:DeleteRole',
      'iam:UpdateRole',
      'iam:UpdateRoleDescription',
      'iam:UpdateAssumeRolePolicy',
      'iam:PutRolePermissionsBoundary',
      'iam:PutRolePolicy',
      'iam:GetRolePolicy',
      'iam:DeleteRolePolicy',
      'iam:AttachRolePolicy',
      'iam:DetachRolePolicy',
      'iam:ListRolePolicies',
      'iam:ListAttachedRolePolicies',
      'iam:TagRole',
      'iam:UntagRole',
    ],
  },
  'AWS::Lambda::Alias': {
    // An alias with CodeDeployLambdaAliasUpdate: CloudFormation starts the release in CodeDeploy.
    actions: [
      'lambda:CreateAlias',
      'lambda:GetAlias',
      'lambda:UpdateAlias',
      'lambda:DeleteAlias',
      'codedeploy:CreateDeployment',
      'codedeploy:GetDeployment',
      'codedeploy:GetDeploymentConfig',
      'codedeploy:RegisterApplicationRevision',
      'codedeploy:GetApplicationRevision',
    ],
  },
  'AWS::Lambda::EventSourceMapping': {
    // The sync watch's mapping on the orders table's stream. CreateEventSourceMapping has no resource
    // type (list_awslambda.html: the execution policy scopes it by the lambda:FunctionArn condition
    // key, stream-permissions.ts); the others act on the mapping's own ARN (event-source-mapping:<uuid>).
    actions: [
      'lambda:GetEventSourceMapping',
      'lambda:UpdateEventSourceMapping',
      'lambda:DeleteEventSourceMapping',
      'lambda:TagResource',
      'lambda:UntagResource',
      'lambda:ListTags',
    ],
    withoutResourceType: ['lambda:CreateEventSourceMapping'],
  },
  'AWS::Lambda::Function': {
    // The role is passed to Lambda; the bundle is read from the asset bucket as the caller.
    actions: [
      'lambda:CreateFunction',
      'lambda:GetFunction',
      'lambda:UpdateFunctionCode',
      'lambda:UpdateFunctionConfiguration',
      'lambda:DeleteFunction',
      'lambda:PutFunctionConcurrency',
      'lambda:DeleteFunctionConcurrency',
      'lambda:GetFunctionCodeSigningConfig',
      'lambda:GetRuntimeManagementConfig',
      'lambda:PutRuntimeManagementConfig',
      'lambda:TagResource',
      'lambda:UntagResource',
      'lambda:ListTags',
      'iam:PassRole',
      's3:GetObject',
    ],
  },
  'AWS::Lambda::Permission': { actions: ['lambda:AddPermission', 'lambda:RemovePermission', 'lambda:GetPolicy'] },
  'AWS::Lambda::Version': {
    actions: ['lambda:PublishVersion', 'lambda:GetFunctionConfiguration', 'lambda:DeleteFunction'],
  },
  'AWS::Logs::LogGroup': {
    actions: [
      'logs:CreateLogGroup',
      'logs:PutRetentionPolicy',
      'logs:DeleteRetentionPolicy',
      'logs:DeleteLogGroup',
      ...LOG_TAGS,
    ],
    // The read handler lists log groups by name prefix (list_amazoncloudwatchlogs.html: no resource type).
    withoutResourceType: ['logs:DescribeLogGroups'],
  },
  'AWS::Logs::MetricFilter': {
    actions: ['logs:PutMetricFilter', 'logs:DescribeMetricFilters', 'logs:DeleteMetricFilter'],
  },
  'AWS::Route53::RecordSet': {
    actions: [
      'route53:GetHostedZone',
      'route53:ChangeResourceRecordSets',
      'route53:ListResourceRecordSets',
      'route53:GetChange',
    ],
  },
  'AWS::Scheduler::Schedule': {
    // The index-lag canary's schedule: its execution role is passed to EventBridge Scheduler.
    // The actions of its registry schema's handlers, as we recall them (cfn-lint's copy carries no
    // handlers): each exists on the schedule's own ARN in the Service Authorization Reference
    // (list_amazoneventbridgescheduler.html; test/infra/policy-actions.spec.ts checks them).
    actions: [...SCHEDULE_ACTIONS, 'iam:PassRole'],
  },
  'AWS::SecretsManager::Secret': {
    actions: [
      'secretsmanager:CreateSecret',
      'secretsmanager:DescribeSecret',
      // Listed, as we recall the registry schema, by its read and update handlers: unverified here
      // (cfn-lint's copy of the schema carries no handlers), so granted, on the stage's secrets only.
      'secretsmanager:GetSecretValue',
      'secretsmanager:UpdateSecret',
      'secretsmanager:PutSecretValue',
      'secretsmanager:DeleteSecret',
      'secretsmanager:TagResource',
      'secretsmanager:UntagResource',
    ],
    // GenerateSecretString: CloudFormation asks Secrets Manager for the random value first
    // (list_awssecretsmanager.html: GetRandomPassword has no resource type).
    withoutResourceType: ['secretsmanager:GetRandomPassword'],
  },
  'AWS::SNS::Subscription': {
    actions: ['sns:Subscribe', 'sns:Unsubscribe', 'sns:GetSubscriptionAttributes', 'sns:SetSubscriptionAttributes'],
  },
  'AWS::SNS::Topic': {
    actions: [
      'sns:CreateTopic',
      'sns:GetTopicAttributes',
      'sns:SetTopicAttributes',
      'sns:DeleteTopic',
      'sns:TagResource',
      'sns:UntagResource',
      'sns:ListTagsForResource',
    ],
  },
  'AWS::SNS::TopicPolicy': { actions: ['sns:SetTopicAttributes', 'sns:GetTopicAttributes'] },
  'AWS::SQS::Queue': {
    // The sync watch's dead-letter queue (its mapping's on-failure destination).
    actions: [
      'sqs:CreateQueue',
      'sqs:GetQueueUrl',
      'sqs:GetQueueAttributes',
      'sqs:SetQueueAttributes',
      'sqs:DeleteQueue',
      'sqs:TagQueue',
      'sqs:UntagQueue',
      'sqs:ListQueueTags',
    ],
  },
  'AWS::SQS::QueuePolicy': { actions: ['sqs:SetQueueAttributes', 'sqs:GetQueueAttributes'] },
  'AWS::WAFv2::WebACL': {
    actions: [
      'wafv2:CreateWebACL',
      'wafv2:GetWebACL',
      'wafv2:UpdateWebACL',
      'wafv2:DeleteWebACL',
      'wafv2:ListTagsForResource',
      'wafv2:TagResource',
      'wafv2:UntagResource',
    ],
  },
  'AWS::WAFv2::WebACLAssociation': {
    // The handlers' permissions for an API Gateway stage: the schema also lists each other
    // protectable service's own action (elasticloadbalancing:SetWebACL, appsync:SetWebACL, ...),
    // which only an association with that service's resource calls.
    actions: [
      'wafv2:AssociateWebACL',
      'wafv2:DisassociateWebACL',
      'wafv2:GetWebACLForResource',
      'wafv2:GetWebACL',
      'wafv2:PutPermissionPolicy',
      'wafv2:GetPermissionPolicy',
      'apigateway:SetWebACL',
    ],
  },
};

/** Every action the table lists without a resource type, once. */
export function actionsWithoutResourceType(): string[] {
  return [...new Set(Object.values(RESOURCE_TYPE_ACTIONS).flatMap((t) => t.withoutResourceType ?? []))].sort();
}
