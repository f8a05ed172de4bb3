import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { TABLES, type TableId } from '../../lib/contract/tables';
import {
  STAGE_LISTINGS_CAP_ENV_VAR,
  stageListingsCap,
  type EntryId,
  type FunctionId,
} from '../../lib/contract/deployment';
import { STAGES } from '../../infra/stages';
import { CURSOR_KEY_SECRET_ENV } from '../../lib/contract/sync';
import { arnOf, logicalId, ref, stageNamed, synthesiseStages, type Synthesised, type SynthesisedStage } from './synth';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

/** The Node.js major package.json's `node` devDependency pins, which every npm script runs on. */
const PINNED_NODE_MAJOR = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  }
).devDependencies.node?.split('.')[0];

/** What each function may do, written out independently of lib/contract/deployment.ts. */
const EXPECTED: Record<
  EntryId,
  {
    memory: number;
    maxTimeout: number;
    tables: Partial<Record<TableId, string[]>>;
    environment?: Record<string, unknown>;
    /** Reads the stage's cursor key secret at run time (GetSecretValue on it alone). */
    readsCursorKey?: true;
    /** Reads the orders table's stream through an event source mapping, its discarded batches going to a queue. */
    readsOrdersStream?: 'sync watch' | 'fan-out';
    /** Sends to the webhook delivery queue, whose URL it is given. */
    sendsDeliveries?: true;
    /** Reads the webhook delivery queue through an event source mapping. */
    readsDeliveries?: true;
    /** Run by a schedule, not released behind an API. */
    scheduled?: true;
  }
> = {
  authorizer: { memory: 256, maxTimeout: 28, tables: { apiKeys: ['dynamodb:GetItem'] } },
  'list-orders': {
    // One full vCPU (Lambda's 1,769 MB), as the listing budget computes.
    memory: 1769,
    maxTimeout: 900,
    tables: {
      orders: ['dynamodb:DescribeTable', 'dynamodb:Scan'],
      // PutItem: the slots of the per-key cap on listings in flight, taken and given back.
      // BatchGetItem: the store-growth counters of an uncompressed listing's size check.
      rateLimits: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    },
    // Started through the wrapper in its bundle, which adds this V8 flag after the runtime's own.
    environment: { AWS_LAMBDA_EXEC_WRAPPER: '/var/task/node-flags.sh', EXTRA_NODE_FLAGS: '--optimize-for-size' },
  },
  'cancel-order': {
    memory: 256,
    maxTimeout: 28,
    tables: {
      orders: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      rateLimits: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
  },
  // The deprecated pets route reads its own table and nothing else of the store.
  'get-pet': {
    memory: 256,
    maxTimeout: 28,
    tables: { pets: ['dynamodb:GetItem'], rateLimits: ['dynamodb:GetItem', 'dynamodb:UpdateItem'] },
  },
  // Read-only on orders: Query on the v2 indexes, Scan for unfiltered pages, GetItem of the
  // index-lag canary's record for a walk's watermark.
  'list-orders-v2': {
    memory: 256,
    maxTimeout: 28,
    tables: {
      orders: ['dynamodb:GetItem', 'dynamodb:Query index/by-update', 'dynamodb:Query index/by-status', 'dynamodb:Scan'],
      rateLimits: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
    // The cursor key's secret, by ARN: the function reads it at run time (test/infra/v2.spec.ts).
    environment: { [CURSOR_KEY_SECRET_ENV]: Match.anyValue() },
    readsCursorKey: true,
  },
  // The orders table's stream consumer: it re-stamps orders (UpdateItem), and sweeps an episode of
  // index lag by the by-update index; nothing else of the store.
  'sync-watch': {
    memory: 256,
    maxTimeout: 60,
    tables: { orders: ['dynamodb:Query index/by-update', 'dynamodb:UpdateItem'] },
    readsOrdersStream: 'sync watch',
  },
  // The index-lag canary: its sentinel's record read and written, its probe read back through each index.
  'index-canary': {
    memory: 256,
    maxTimeout: 60,
    tables: {
      orders: [
        'dynamodb:GetItem',
        'dynamodb:Query index/by-update',
        'dynamodb:Query index/by-status',
        'dynamodb:UpdateItem',
      ],
    },
    scheduled: true,
  },
  // Its own table, read and written, and nothing of orders or keys: Query of the caller's
  // partition (the table itself, not its index), GetItem of a tombstone.
  'webhook-endpoints': {
    memory: 256,
    maxTimeout: 28,
    tables: {
      webhookEndpoints: [
        'dynamodb:DeleteItem',
        'dynamodb:GetItem',
        'dynamodb:PutItem',
        'dynamodb:Query',
        'dynamodb:UpdateItem',
      ],
      // The deliveries log of an endpoint (the deliveries route).
      webhookDeliveries: ['dynamodb:Query'],
      rateLimits: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
    },
    // The test route queues an event.
    environment: { WEBHOOK_DELIVERY_QUEUE_URL: Match.anyValue() },
    sendsDeliveries: true,
  },
  // The stream's second consumer: the enabled endpoints' index (never a secret), and it queues.
  'webhook-fanout': {
    memory: 256,
    maxTimeout: 60,
    tables: { webhookEndpoints: ['dynamodb:Query index/enabled'] },
    environment: { WEBHOOK_DELIVERY_QUEUE_URL: Match.anyValue() },
    readsOrdersStream: 'fan-out',
    sendsDeliveries: true,
  },
  // The delivery worker: the endpoint read before each attempt (and disabled, or marked failing),
  // the order's lease and acknowledgement and the log; it reads its queue and re-sends to it.
  'webhook-delivery': {
    memory: 256,
    maxTimeout: 60,
    tables: {
      webhookEndpoints: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      webhookDeliveries: ['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
    },
    environment: { WEBHOOK_DELIVERY_QUEUE_URL: Match.anyValue() },
    sendsDeliveries: true,
    readsDeliveries: true,
  },
};
const ENTRIES = Object.keys(EXPECTED) as EntryId[];
/** The functions behind the APIs, each with its pre-traffic hook. */
const RELEASED = ENTRIES.filter(
  (entry): entry is FunctionId =>
    !EXPECTED[entry].readsOrdersStream && !EXPECTED[entry].readsDeliveries && !EXPECTED[entry].scheduled,
);

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
}

/** Every (action, resource) the function's role allows, as comparable strings. */
function permissions(s: SynthesisedStage, entry: EntryId): string[] {
  const role = s.stack.functions[entry].role;
  const policies = Object.values(s.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(role)] } }));
  const out: string[] = [];
  for (const policy of policies) {
    for (const st of (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement) {
      expect(st.Effect).toBe('Allow');
      const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
      const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      for (const a of actions) for (const r of resources) out.push(`${a} ${JSON.stringify(r)}`);
    }
  }
  return out.sort();
}

describe.each(['staging', 'prod'] as const)('functions of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test("list-orders has its stage's reserved concurrency, which bounds its listings; the others draw on the shared pool", () => {
    const { template, stack } = stage();
    const functions = template.findResources('AWS::Lambda::Function');
    const reserved = (entry: FunctionId) =>
      functions[logicalId(stack.functions[entry].function)]?.Properties?.ReservedConcurrentExecutions as unknown;
    expect(reserved('list-orders')).toBe(STAGES[stageName].listOrdersReservedConcurrency);
    expect(reserved('list-orders')).toBe(stageName === 'prod' ? 50 : 5);
    expect(reserved('authorizer')).toBeUndefined();
    expect(reserved('cancel-order')).toBeUndefined();
    expect(reserved('list-orders-v2')).toBeUndefined();
  });

  test('list-orders is told the stage-wide cap on listings in flight, below its reserved concurrency', () => {
    const { template, stack } = stage();
    const props = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions['list-orders'].function)]
      ?.Properties as { Environment: { Variables: Record<string, string> } };
    const reservedConcurrency = STAGES[stageName].listOrdersReservedConcurrency;
    const cap = props.Environment.Variables[STAGE_LISTINGS_CAP_ENV_VAR];
    expect(cap).toBe(String(stageListingsCap(reservedConcurrency)));
    expect(Number(cap)).toBeLessThan(reservedConcurrency);
    for (const entry of ['authorizer', 'cancel-order'] as const) {
      const other = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions[entry].function)];
      expect(JSON.stringify(other?.Properties)).not.toContain(STAGE_LISTINGS_CAP_ENV_VAR);
    }
  });

  test('there are exactly the service functions, and the pre-traffic hook of each', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::Lambda::Function', ENTRIES.length + RELEASED.length);
    const hooks = RELEASED.map((entry) => logicalId(stack.releases.hooks[entry].function));
    expect(Object.keys(template.findResources('AWS::Lambda::Function')).sort()).toEqual(
      [...ENTRIES.map((entry) => logicalId(stack.functions[entry].function)), ...hooks].sort(),
    );
  });

  test.each(ENTRIES)(
    '%s runs the pinned Node.js on arm64 with tracing, its own memory and a short timeout',
    (entry) => {
      const { template, stack } = stage();
      const fn = stack.functions[entry];
      template.hasResourceProperties('AWS::Lambda::Function', {
        Runtime: `nodejs${PINNED_NODE_MAJOR}.x`,
        Architectures: ['arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        MemorySize: EXPECTED[entry].memory,
        Timeout: Match.anyValue(),
        Role: arnOf(fn.role),
        LoggingConfig: { LogGroup: ref(fn.logGroup) },
      });
      const props = template.findResources('AWS::Lambda::Function')[logicalId(fn.function)]?.Properties as {
        Timeout: number;
      };
      expect(props.Timeout).toBeGreaterThan(0);
      expect(props.Timeout).toBeLessThanOrEqual(EXPECTED[entry].maxTimeout);
    },
  );

  test.each(ENTRIES)('%s gets exactly the environment it reads, never a DynamoDB endpoint', (entry) => {
    const { template, stack } = stage();
    const tables = Object.fromEntries(
      (Object.keys(EXPECTED[entry].tables) as TableId[]).map((id) => [TABLES[id].envVar, ref(stack.tables.tables[id])]),
    );
    template.hasResourceProperties('AWS::Lambda::Function', {
      Role: arnOf(stack.functions[entry].role),
      Environment: {
        Variables: Match.exact({
          POWERTOOLS_SERVICE_NAME: 'store-orders',
          POWERTOOLS_LOG_LEVEL: 'INFO',
          NODE_OPTIONS: '--enable-source-maps',
          [STAGE_ENV_VAR]: stack.config.stage,
          ...tables,
          ...EXPECTED[entry].environment,
          // The stage-wide cap on listings in flight, which only list-orders takes.
          ...(entry === 'list-orders'
            ? {
                [STAGE_LISTINGS_CAP_ENV_VAR]: String(stageListingsCap(STAGES[stageName].listOrdersReservedConcurrency)),
              }
            : {}),
        }),
      },
    });
  });

  test.each(ENTRIES)(
    '%s may use only its DynamoDB actions on its tables, its log group, X-Ray and its secret',
    (entry) => {
      const s = stage();
      const { stack } = s;
      const fn = stack.functions[entry];
      const expected = [
        `logs:CreateLogStream ${JSON.stringify(arnOf(fn.logGroup))}`,
        `logs:PutLogEvents ${JSON.stringify(arnOf(fn.logGroup))}`,
        'xray:PutTelemetryRecords "*"',
        'xray:PutTraceSegments "*"',
      ];
      for (const [id, actions] of Object.entries(EXPECTED[entry].tables) as [TableId, string[]][]) {
        const table = arnOf(stack.tables.tables[id]);
        for (const action of actions) {
          const index = /^dynamodb:Query index\/(.+)$/.exec(action)?.[1];
          if (index === undefined) expected.push(`${action} ${JSON.stringify(table)}`);
          // Query on an index: that index by name, never index/*.
          else expected.push(`dynamodb:Query ${JSON.stringify({ 'Fn::Join': ['', [table, `/index/${index}`]] })}`);
        }
      }
      if (EXPECTED[entry].readsCursorKey)
        expected.push(`secretsmanager:GetSecretValue ${JSON.stringify(ref(stack.cursorKey))}`);
      const sendActions = ['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'];
      const deliveryQueue = JSON.stringify(arnOf(stack.webhookDelivery.queue));
      if (EXPECTED[entry].sendsDeliveries) expected.push(...sendActions.map((a) => `sqs:${a} ${deliveryQueue}`));
      if (EXPECTED[entry].readsDeliveries)
        expected.push(
          // What Lambda's SQS mapping does with the function's role (services-sqs-configure.html).
          ...['ChangeMessageVisibility', 'DeleteMessage', 'GetQueueAttributes', 'GetQueueUrl', 'ReceiveMessage'].map(
            (a) => `sqs:${a} ${deliveryQueue}`,
          ),
        );
      const readsStream = EXPECTED[entry].readsOrdersStream;
      if (readsStream) {
        const stream = JSON.stringify({ 'Fn::GetAtt': [logicalId(stack.tables.tables.orders), 'StreamArn'] });
        const deadLetters =
          readsStream === 'sync watch' ? stack.syncWatch.deadLetters : stack.webhookDelivery.fanout.deadLetters;
        const queue = JSON.stringify(arnOf(deadLetters));
        expected.push(
          // Lambda's reads of the stream (ListStreams names no stream: docs.aws.amazon.com/lambda/latest/dg/with-ddb.html).
          'dynamodb:ListStreams "*"',
          ...['DescribeStream', 'GetRecords', 'GetShardIterator'].map((action) => `dynamodb:${action} ${stream}`),
          // The on-failure destination: what the mapping sends a discarded batch's description with.
          ...['GetQueueAttributes', 'GetQueueUrl', 'SendMessage'].map((action) => `sqs:${action} ${queue}`),
        );
      }
      expect(permissions(s, entry)).toEqual([...new Set(expected)].sort());
      s.template.hasResourceProperties('AWS::IAM::Role', {
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'lambda.amazonaws.com' } })],
        }),
        ManagedPolicyArns: Match.absent(),
      });
      const role = s.template.findResources('AWS::IAM::Role')[logicalId(fn.role)];
      expect(role?.Properties?.ManagedPolicyArns).toBeUndefined();
    },
  );

  test('list-orders cannot write orders and the authorizer can only read keys', () => {
    const s = stage();
    const orders = JSON.stringify(arnOf(s.stack.tables.tables.orders));
    expect(permissions(s, 'list-orders').filter((p) => p.endsWith(orders))).toEqual([
      `dynamodb:DescribeTable ${orders}`,
      `dynamodb:Scan ${orders}`,
    ]);
    expect(permissions(s, 'authorizer').filter((p) => p.startsWith('dynamodb:'))).toEqual([
      `dynamodb:GetItem ${JSON.stringify(arnOf(s.stack.tables.tables.apiKeys))}`,
    ]);
  });

  test.each(ENTRIES)('%s logs to its own log group with the stage retention', (entry) => {
    const { template, stack } = stage();
    const logGroup = template.findResources('AWS::Logs::LogGroup')[logicalId(stack.functions[entry].logGroup)];
    expect(logGroup?.Properties?.RetentionInDays).toBe(STAGES[stageName].logRetention);
    expect(logGroup?.DeletionPolicy).toBe(stageName === 'prod' ? 'Retain' : 'Delete');
  });

  test('API Gateway may invoke each route function, through its live alias, from its own method only', () => {
    const { template, stack } = stage();
    for (const entry of ['list-orders', 'cancel-order', 'get-pet'] as const) {
      const permissions = Object.values(
        template.findResources('AWS::Lambda::Permission', {
          Properties: { FunctionName: ref(stack.functions[entry].alias) },
        }),
      );
      expect(permissions).toHaveLength(1);
      expect(permissions[0]?.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
      });
    }
  });
});
