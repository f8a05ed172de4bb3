// What a stage's webhook delivery queue (infra/constructs/webhook-delivery.ts) asks of the stage's
// permissions boundary, apart, as stream-permissions.ts does for the change stream: the worker's role,
// through which its event source mapping reads the queue, and the roles that send to it (the fan-out,
// the worker's own retries, the endpoints' test route). The queue's ARN ends in the name CloudFormation
// generates, `StoreOrders-<stage>-<logical id>-<suffix>`: the stage's generated name prefix scopes it,
// as it scopes the dead-letter queues. The execution policy's `sqs:*` on that prefix and its mapping
// statements (the SQS mapping, too, is CreateEventSourceMapping on one of the stage's functions, with
// `lambda:FunctionArn`) already cover making them. Actions from the Service Authorization Reference
// (list_amazonsqs.html) and Lambda's SQS execution role (docs.aws.amazon.com/lambda/latest/dg/
// services-sqs-configure.html: ReceiveMessage, DeleteMessage, GetQueueAttributes; CDK adds
// ChangeMessageVisibility and GetQueueUrl).
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StageName } from '../../lib/contract/deployment';
import { generatedNamePrefix } from './names';

/** What a function's event source mapping does with its queue, through the function's role. */
export const QUEUE_CONSUME_ACTIONS = [
  'sqs:ReceiveMessage',
  'sqs:DeleteMessage',
  'sqs:ChangeMessageVisibility',
  'sqs:GetQueueAttributes',
  'sqs:GetQueueUrl',
];

/** What a sender does: send, and the attributes and URL the SDK may look up. */
export const QUEUE_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/** The stage's boundary's, for the roles that send to and read the stage's queues, and no other's. */
export function queueBoundaryStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: [...new Set([...QUEUE_CONSUME_ACTIONS, ...QUEUE_SEND_ACTIONS])],
      resources: [`arn:${Aws.PARTITION}:sqs:${Aws.REGION}:${Aws.ACCOUNT_ID}:${generatedNamePrefix(stage)}*`],
    }),
  ];
}
