import { NagSuppressions } from 'cdk-nag';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { IConstruct } from 'constructs';
import { BASE_PATH, V2_BASE_PATH } from '../lib/contract/routes';
import { QUEUE_MAPPINGS, STREAM_MAPPINGS } from '../lib/contract/deployment';
import type { StreamConsumer } from './constructs/change-stream';
import type { WebhookDelivery } from './constructs/webhook-delivery';
import type { OrdersApi } from './constructs/orders-api';
import type { ServiceAlarms } from './constructs/service-alarms';
import type { ServiceFunction } from './constructs/service-function';
import type { ServiceReleases } from './constructs/service-releases';

/** The parts of a stage stack that carry findings (the stack passes itself; its type is not imported, so no circle). */
export interface StageNagSubjects {
  functions: Record<string, ServiceFunction>;
  /** Every RestApi of the stage (v1, v2): each carries the same findings, for the same reasons. */
  apis: readonly OrdersApi[];
  alarms: ServiceAlarms;
  releases: ServiceReleases;
  /** The sync watch's event source mapping and its on-failure destination. */
  syncWatch: StreamConsumer;
  /** Event delivery's queues and the fan-out's on-failure destination. */
  webhookDelivery: WebhookDelivery;
}

/**
 * The cdk-nag (AwsSolutions, Serverless) findings this design accepts, each on the one resource it
 * concerns, with the reason. Anything not listed here fails the infra tests and `cdk synth`.
 */
export function explainNagFindings(stack: StageNagSubjects): void {
  for (const [name, fn] of Object.entries(stack.functions)) {
    const readsStream = Object.hasOwn(STREAM_MAPPINGS, name);
    const readsQueue = Object.hasOwn(QUEUE_MAPPINGS, name);
    suppress(fn.function, {
      'Serverless-LambdaDLQ': readsStream
        ? "Invoked by its event source mapping only, synchronously; a batch the mapping gives up on is described in the mapping's own on-failure destination (an SQS queue). A function dead-letter queue receives failed asynchronous invocations, of which there are none."
        : readsQueue
          ? "Invoked by its SQS event source mapping only, synchronously; a message it fails to handle again and again moves to its queue's dead-letter queue by the queue's redrive policy. A function dead-letter queue receives failed asynchronous invocations, of which there are none."
          : 'Invoked synchronously only (by API Gateway, and by its release hook through Invoke with RequestResponse); a dead-letter queue receives failed asynchronous invocations, of which there are none.',
    });
    const policy = fn.role.node.findChild('DefaultPolicy');
    suppress(
      policy,
      {
        'AwsSolutions-IAM5':
          'xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions; X-Ray tracing needs Resource "*".' +
          (readsStream
            ? ' dynamodb:ListStreams, which Lambda needs to read a table\'s stream, "returns an array of stream ARNs associated with the current account" and names no stream: CDK grants it on "*" (StreamGrants.list), as AWSLambdaDynamoDBExecutionRole does; the stream\'s reads name the stream.'
            : '') +
          ' DynamoDB and log permissions name their resources.',
      },
      ['Resource::*'],
    );
  }
  suppress(stack.syncWatch.deadLetters, {
    'AwsSolutions-SQS3':
      "This queue is the on-failure destination of the sync watch's event source mapping, its dead-letter queue: it holds descriptions of the stream batches given up on, for an operator to read (docs/operations.md#the-sync-watch); nothing consumes it, so nothing could fail to.",
    'Serverless-SQSRedrivePolicy':
      "A dead-letter queue itself (the sync watch's on-failure destination): its messages are read by an operator, never processed, so there is no failed processing to redrive; they are kept 14 days, SQS's longest.",
  });

  suppress(stack.webhookDelivery.fanout.deadLetters, {
    'AwsSolutions-SQS3':
      "The on-failure destination of the webhook fan-out's event source mapping, its dead-letter queue: it holds descriptions of the stream batches given up on, for an operator to read (docs/operations.md#webhook-delivery); nothing consumes it.",
    'Serverless-SQSRedrivePolicy':
      "A dead-letter queue itself (the fan-out's on-failure destination): read by an operator, never processed; kept 14 days, SQS's longest.",
  });
  suppress(stack.webhookDelivery.mapping, {
    'Serverless-LambdaEventSourceMappingDestination':
      "An SQS event source mapping takes no on-failure destination (Lambda offers them for streams and Kafka); a message the worker fails to handle again and again moves to the queue's dead-letter queue by its redrive policy (maxReceiveCount), and the worker deletes every message it handled (services-sqs-errorhandling.html).",
  });
  suppress(stack.webhookDelivery.deadLetters, {
    'AwsSolutions-SQS3':
      "The delivery queue's dead-letter queue: it holds deliveries the worker failed to handle again and again (a crash or a timeout), for an operator to look into and redrive (docs/operations.md#webhook-delivery); nothing consumes it.",
    'Serverless-SQSRedrivePolicy':
      'A dead-letter queue itself: its messages are looked into and redriven by an operator, never processed where they are; kept 14 days.',
  });

  for (const ordersApi of stack.apis) explainApiFindings(ordersApi);
  if (stack.alarms.email) {
    suppress(stack.alarms.email.topic, {
      'AwsSolutions-SNS2':
        'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and alarm notifications carry only alarm names and metric values; in-transit encryption is enforced (enforceSSL).',
    });
    suppress(stack.alarms.email.subscription, {
      'Serverless-SNSRedrivePolicy':
        'An email subscription for alarm notifications: a message SNS cannot deliver to a mailbox is not worth a dead-letter queue, as the alarm stays visible in CloudWatch.',
    });
  }
  for (const hook of Object.values(stack.releases.hooks)) {
    suppress(hook.function, {
      'Serverless-LambdaDLQ':
        "CodeDeploy acts on the status the hook reports, not on how its invocation ended: the hook reports Failed in a finally whenever a check or its setup throws or runs out of its bound, before the hook's own timeout (infra/release-hook/handler.ts), and only a report that itself fails (CodeDeploy unreachable) leaves the release to CodeDeploy's hook timeout, with the error in the hook's log. A queue holding its event would add nothing that the deployment's status and the hook's logs do not show.",
    });
    suppress(
      hook.role.node.findChild('DefaultPolicy'),
      {
        'AwsSolutions-IAM5':
          'xray:PutTraceSegments, xray:PutTelemetryRecords and codedeploy:PutLifecycleEventHookExecutionStatus support no resource-level permissions (Service Authorization Reference): they need Resource "*". The invoke names its version.',
      },
      ['Resource::*'],
    );
  }
  suppress(stack.releases.canaryKey, {
    'AwsSolutions-SMG4':
      'The release canary key is an API key an operator stores (docs/operations.md#the-release-canary-key); Secrets Manager cannot make one, so it is rotated by storing a new key and revoking the old one.',
  });
  // CDK grants a function's invoke with its qualified ARNs too (`<arn>:*`): CodeDeploy invokes
  // each hook unqualified, so the wildcard reaches the hook functions' own versions only.
  suppress(
    stack.releases.role.node.findChild('DefaultPolicy'),
    {
      'AwsSolutions-IAM5':
        "The wildcard is a hook function's qualifier (`<hook arn>:*`), added by CDK's grant: it reaches only the pre-traffic hook functions' own versions.",
    },
    [{ regex: '/^Resource::<Releases[A-Za-z0-9]+HookFunction[0-9A-F]+\\.Arn>:\\*$/g' }],
  );
  suppress(
    stack.releases.role,
    {
      'AwsSolutions-IAM4':
        "AWSCodeDeployRoleForLambdaLimited is AWS's documented policy for CodeDeploy's Lambda deployments: it reads alarms and updates aliases, and reaches only CodeDeploy's own hook functions and topics.",
    },
    ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited'],
  );
}

/** Why request validation is left to the handlers, by version prefix: each names its own inputs. */
const REQUEST_VALIDATION: Record<string, string> = {
  [BASE_PATH]:
    'The only request input is the orderId path parameter, which the handler validates strictly (int64) and refuses with INVALID_ORDER_ID in the Error shape; an API Gateway validator cannot answer in that shape.',
  [V2_BASE_PATH]:
    'The only request inputs are the query parameters (limit, cursor, status, updatedSince), which the handler validates strictly and refuses with INVALID_QUERY or INVALID_CURSOR in the Error shape, naming the parameter; an API Gateway validator cannot answer in that shape.',
};

/** The findings of one RestApi: the same for v1 and v2, as both are built by OrdersApi. */
function explainApiFindings(ordersApi: OrdersApi): void {
  const { api } = ordersApi;
  for (const method of api.methods) {
    suppress(method, {
      'AwsSolutions-COG4':
        'Clients are machines holding bearer API keys, checked by the Lambda TOKEN authorizer; there are no Cognito users.',
    });
  }
  for (const resource of ordersApi.methodNotAllowed) {
    const any = resource.node.findChild('ANY');
    suppress(any, {
      'AwsSolutions-APIG4':
        'This ANY method only answers 405 METHOD_NOT_ALLOWED from a MOCK integration: it reaches no backend and reveals only which methods exist, which the OpenAPI document publishes.',
    });
  }
  const validation = REQUEST_VALIDATION[ordersApi.basePath];
  if (validation === undefined) throw new Error(`No reason is given for ${ordersApi.basePath}'s request validation`);
  suppress(api, { 'AwsSolutions-APIG2': validation });
}

/** The v2 cursor key's finding: it is not rotated automatically, on purpose. */
export function explainCursorKeyFindings(cursorKey: IConstruct): void {
  suppress(cursorKey, {
    'AwsSolutions-SMG4':
      'The key only seals v2 listing cursors against tampering (any key may read every order anyway). It is rotated by hand (docs/operations.md#the-v2-cursor-key), no sooner than the cursor lifetime after the last rotation: cursors in flight still open under the previous version, and a schedule could rotate twice within one lifetime.',
  });
}

/** The account stack's one finding, on the CloudWatch role it sets. */
export function explainAccountNagFindings(cloudWatchRole: IRole): void {
  suppress(
    cloudWatchRole,
    {
      'AwsSolutions-IAM4':
        "AmazonAPIGatewayPushToCloudWatchLogs is AWS's documented policy for the account-level role that API Gateway execution logging requires.",
    },
    ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'],
  );
}

function suppress(
  construct: IConstruct,
  reasons: Record<string, string>,
  appliesTo?: (string | { regex: string })[],
): void {
  NagSuppressions.addResourceSuppressions(
    construct,
    Object.entries(reasons).map(([id, reason]) => ({ id, reason, ...(appliesTo ? { appliesTo } : {}) })),
  );
}
