// The policy the bootstrap's CloudFormation execution role gets instead of AdministratorAccess
// (`cdk bootstrap --cloudformation-execution-policies <its ARN>`): the services the app's stacks
// create resources in, each scoped to this project's names where the service allows it.
// test/infra/pipeline.spec.ts checks that every resource type the app synthesises is covered.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { ASSETS_BUCKET, VERSION_PARAMETER_ARN } from './bootstrap';

const arn = (service: string, resource: string, region: string = Aws.REGION) =>
  `arn:${Aws.PARTITION}:${service}:${region}:${Aws.ACCOUNT_ID}:${resource}`;

/** Stack-generated names start with the stack's name; the project's stacks all start so. */
const STACK_PREFIX = 'StoreOrders-';
/** Names the project gives resources itself (CodeDeploy applications, dashboards, pipeline roles). */
const NAME_PREFIX = 'store-orders-';

export function executionStatements(): PolicyStatement[] {
  const iamNames = (kind: string) => [STACK_PREFIX, NAME_PREFIX].map((p) => arn('iam', `${kind}/${p}*`, ''));
  return [
    new PolicyStatement({
      actions: ['lambda:*'],
      resources: [arn('lambda', `function:${STACK_PREFIX}*`)],
    }),
    new PolicyStatement({ actions: ['dynamodb:*'], resources: [arn('dynamodb', `table/${STACK_PREFIX}*`)] }),
    // REST APIs, stages, usage plans and domain names have ids API Gateway picks: the Region's paths.
    new PolicyStatement({
      actions: ['apigateway:*'],
      resources: [`arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/*`],
    }),
    // Function and access log groups get generated names; the execution log group is API Gateway's.
    new PolicyStatement({ actions: ['logs:*'], resources: [arn('logs', 'log-group:*')] }),
    new PolicyStatement({
      actions: ['cloudwatch:*'],
      resources: [arn('cloudwatch', 'alarm:*'), arn('cloudwatch', `dashboard/${NAME_PREFIX}*`, '')],
    }),
    new PolicyStatement({ actions: ['codedeploy:*'], resources: [arn('codedeploy', '*')] }),
    new PolicyStatement({ actions: ['sns:*'], resources: [arn('sns', `${STACK_PREFIX}*`)] }),
    // The v2 cursor key: a secret whose name CloudFormation generates (not under the stack's prefix).
    new PolicyStatement({ actions: ['secretsmanager:*'], resources: [arn('secretsmanager', 'secret:*')] }),
    // The functions' roles, the account stack's CloudWatch role and the pipeline's own roles and policy.
    new PolicyStatement({
      actions: [
        'iam:GetRole',
        'iam:CreateRole',
        'iam:DeleteRole',
        'iam:UpdateRole',
        'iam:UpdateRoleDescription',
        'iam:UpdateAssumeRolePolicy',
        'iam:TagRole',
        'iam:UntagRole',
        'iam:PassRole',
        'iam:GetRolePolicy',
        'iam:PutRolePolicy',
        'iam:DeleteRolePolicy',
        'iam:AttachRolePolicy',
        'iam:DetachRolePolicy',
        'iam:ListRolePolicies',
        'iam:ListAttachedRolePolicies',
      ],
      resources: iamNames('role'),
    }),
    new PolicyStatement({
      actions: [
        'iam:GetPolicy',
        'iam:CreatePolicy',
        'iam:DeletePolicy',
        'iam:GetPolicyVersion',
        'iam:CreatePolicyVersion',
        'iam:DeletePolicyVersion',
        'iam:ListPolicyVersions',
        'iam:TagPolicy',
        'iam:UntagPolicy',
      ],
      resources: iamNames('policy'),
    }),
    new PolicyStatement({
      actions: [
        'iam:GetOpenIDConnectProvider',
        'iam:CreateOpenIDConnectProvider',
        'iam:DeleteOpenIDConnectProvider',
        'iam:UpdateOpenIDConnectProviderThumbprint',
        'iam:AddClientIDToOpenIDConnectProvider',
        'iam:RemoveClientIDFromOpenIDConnectProvider',
        'iam:TagOpenIDConnectProvider',
        'iam:UntagOpenIDConnectProvider',
      ],
      resources: [arn('iam', 'oidc-provider/token.actions.githubusercontent.com', '')],
    }),
    // The stages read the account stack's output (Fn::GetStackOutput).
    new PolicyStatement({
      actions: ['cloudformation:DescribeStacks'],
      resources: [arn('cloudformation', `stack/${STACK_PREFIX}*/*`)],
    }),
    // Lambda reads the bundles from the asset bucket as the caller; the BootstrapVersion parameter.
    new PolicyStatement({ actions: ['s3:GetObject'], resources: [`arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}/*`] }),
    new PolicyStatement({ actions: ['ssm:GetParameters'], resources: [VERSION_PARAMETER_ARN] }),
    // A stage's optional custom domain: its certificate and its alias record.
    new PolicyStatement({
      actions: [
        'acm:RequestCertificate',
        'acm:DescribeCertificate',
        'acm:DeleteCertificate',
        'acm:AddTagsToCertificate',
      ],
      resources: [arn('acm', 'certificate/*')],
    }),
    new PolicyStatement({
      actions: ['route53:GetHostedZone', 'route53:ChangeResourceRecordSets', 'route53:ListResourceRecordSets'],
      resources: [`arn:${Aws.PARTITION}:route53:::hostedzone/*`],
    }),
    new PolicyStatement({ actions: ['route53:GetChange'], resources: [`arn:${Aws.PARTITION}:route53:::change/*`] }),
  ];
}
