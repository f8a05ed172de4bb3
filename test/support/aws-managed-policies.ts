// AWS managed policies the stacks attach, as AWS publishes them (the AWS Managed Policy
// Reference): the policy simulator evaluates the roles with them, as IAM would.
import type { PolicyDocument } from './iam-world';

/** https://docs.aws.amazon.com/aws-managed-policy/latest/reference/AWSCodeDeployRoleForLambdaLimited.html (v1) */
const CODEDEPLOY_FOR_LAMBDA_LIMITED: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [
    {
      Action: [
        'cloudwatch:DescribeAlarms',
        'lambda:UpdateAlias',
        'lambda:GetAlias',
        'lambda:GetProvisionedConcurrencyConfig',
      ],
      Resource: '*',
      Effect: 'Allow',
    },
    { Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: 'arn:aws:s3:::*/CodeDeploy/*', Effect: 'Allow' },
    {
      Action: ['s3:GetObject', 's3:GetObjectVersion'],
      Resource: '*',
      Condition: { StringEquals: { 's3:ExistingObjectTag/UseWithCodeDeploy': 'true' } },
      Effect: 'Allow',
    },
    { Action: ['lambda:InvokeFunction'], Resource: 'arn:aws:lambda:*:*:function:CodeDeployHook_*', Effect: 'Allow' },
  ],
};

/** By the ARN a template attaches them with (partition aws). */
export const AWS_MANAGED_POLICIES: Record<string, PolicyDocument> = {
  'arn:aws:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited': CODEDEPLOY_FOR_LAMBDA_LIMITED,
};
