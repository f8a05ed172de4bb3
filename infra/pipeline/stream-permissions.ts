// What a stage's change stream (infra/constructs/change-stream.ts: the orders table's stream, the
// sync watch's event source mapping, its SQS dead-letter queue) asks of the pipeline's two policies,
// apart, so each policy adds it with one line for the names the stage's resources get.
// Actions and resource types from the Service Authorization Reference
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awslambda.html,
// list_amazonsqs.html, list_amazondynamodb.html): CreateEventSourceMapping has no resource type (it
// is in infra/pipeline/resource-actions.ts's withoutResourceType, granted on "*" there); the other
// mapping actions act on the mapping's own ARN, `event-source-mapping:<uuid>`, an id Lambda picks,
// so no name can scope them; the queue's actions act on its ARN, which ends in the name
// CloudFormation generates from the stack's; dynamodb:ListStreams has no resource type.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { RESOURCE_TYPE_ACTIONS } from './resource-actions';

const arn = (service: string, resource: string) =>
  `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;

/** What the event source mapping does with its on-failure destination: send a discarded batch's description. */
export const DEAD_LETTER_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/**
 * The execution role's: create, change and delete the mapping, and the dead-letter queue of a stack
 * whose generated names start with `namePrefix`.
 */
export function streamExecutionStatements(namePrefix: string): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: [...(RESOURCE_TYPE_ACTIONS['AWS::Lambda::EventSourceMapping']?.actions ?? [])],
      resources: [arn('lambda', 'event-source-mapping:*')],
    }),
    new PolicyStatement({ actions: ['sqs:*'], resources: [arn('sqs', `${namePrefix}*`)] }),
  ];
}

/**
 * The boundary's, for the stream function's role: the mapping sends a discarded batch's description
 * to the queue, and reads the stream with the role (its reads of the table's stream ARN fall under
 * the boundary's grant on the tables; ListStreams names no stream:
 * https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html).
 */
export function streamBoundaryStatements(namePrefix: string): PolicyStatement[] {
  return [
    new PolicyStatement({ actions: DEAD_LETTER_SEND_ACTIONS, resources: [arn('sqs', `${namePrefix}*`)] }),
    new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }),
  ];
}
