// The permissions boundary of every role the app's stacks make (the pipeline stack creates it; every
// stack applies it to its roles). The CloudFormation execution role may create or change a role only
// with this boundary (infra/pipeline/execution-policy.ts), so a template it deploys cannot make a
// role that does more than this: no IAM change at all, and only the project's own resources.
// test/infra/pipeline.spec.ts checks that every role of every stack carries it and that it allows
// every action their policies grant (a boundary only takes away).
// https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_boundaries.html
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { CANARY_KEY_SECRET_TAG } from '../../lib/contract/deployment';
import { ASSETS_BUCKET, EXECUTION_ROLE_ARN, VERSION_PARAMETER_ARN } from './bootstrap';
import { LOOKUP_ROLE_ARN, NAME_PREFIX, STACK_PREFIX } from './names';
import { streamBoundaryStatements } from './stream-permissions';

const arn = (service: string, resource: string) =>
  `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;

export function boundaryStatements(): PolicyStatement[] {
  return [
    // The functions and release hooks, CodeDeploy's role (AWSCodeDeployRoleForLambdaLimited) and
    // API Gateway's CloudWatch role (AmazonAPIGatewayPushToCloudWatchLogs), at run time.
    new PolicyStatement({ actions: ['dynamodb:*'], resources: [arn('dynamodb', `table/${STACK_PREFIX}*`)] }),
    new PolicyStatement({
      actions: ['lambda:*'],
      resources: [arn('lambda', `function:${STACK_PREFIX}*`), arn('lambda', `function:${NAME_PREFIX}*`)],
    }),
    // On "*" as AmazonAPIGatewayPushToCloudWatchLogs grants it: API Gateway lists and creates the
    // execution log groups itself, and a listing's resource is not always a log group's ARN.
    new PolicyStatement({ actions: ['logs:*'], resources: ['*'] }),
    new PolicyStatement({ actions: ['codedeploy:*'], resources: [arn('codedeploy', '*')] }),
    new PolicyStatement({ actions: ['sns:Publish'], resources: [arn('sns', '*')] }),
    // The orders table's change stream: its reader lists the streams; its mapping sends a batch it gives up on to the queue.
    ...streamBoundaryStatements(STACK_PREFIX),
    new PolicyStatement({
      actions: ['secretsmanager:GetSecretValue', 'secretsmanager:DescribeSecret'],
      resources: [arn('secretsmanager', 'secret:*')],
    }),
    // A deploy role stores its stage's release canary key (canary-key-permissions.ts): a secret with
    // the canary key tag, no other.
    new PolicyStatement({
      actions: ['secretsmanager:PutSecretValue'],
      resources: [arn('secretsmanager', 'secret:*')],
      conditions: { Null: { [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: 'false' } },
    }),
    // Actions with no resource type (the Service Authorization Reference).
    new PolicyStatement({
      actions: [
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'cloudwatch:PutMetricData',
        'cloudwatch:DescribeAlarms',
        'lambda:GetAccountSettings',
      ],
      resources: ['*'],
    }),
    // The pipeline's roles (infra/pipeline/permissions.ts): deploy through the execution role,
    // smoke-test, look up.
    new PolicyStatement({ actions: ['cloudformation:*'], resources: [arn('cloudformation', '*')] }),
    new PolicyStatement({
      actions: ['s3:*'],
      resources: [`arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}`, `arn:${Aws.PARTITION}:s3:::${ASSETS_BUCKET}/*`],
    }),
    new PolicyStatement({ actions: ['ssm:GetParameter', 'ssm:GetParameters'], resources: [VERSION_PARAMETER_ARN] }),
    new PolicyStatement({
      actions: ['apigateway:*'],
      resources: [`arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::/*`],
    }),
    new PolicyStatement({ actions: ['iam:PassRole'], resources: [EXECUTION_ROLE_ARN] }),
    new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [LOOKUP_ROLE_ARN] }),
  ];
}
