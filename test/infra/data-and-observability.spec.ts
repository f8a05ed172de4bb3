import { Match } from 'aws-cdk-lib/assertions';
import { PLAN_NAMES } from '../../lib/contract/plans';
import { ROUTES, V2_ROUTES } from '../../lib/contract/routes';
import { AUTHORIZER_FAILED_MESSAGE } from '../../lib/edge/authorizer';
import { ORDER_INDEXES, TABLES, type TableId } from '../../lib/contract/tables';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  ACCOUNT_STACK_NAME,
  API_URL_OUTPUT,
  EXECUTE_API_URL_OUTPUT,
  REST_API_ID_OUTPUT,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
  CLOUDWATCH_ROLE_OUTPUT,
  FUNCTIONS,
} from '../../lib/contract/deployment';
import { STAGES } from '../../infra/stages';
import { STAGE_TAG } from '../../infra/pipeline/names';
import { EXECUTION_LOGGING_ROLE_TAG } from '../../infra/service-app';
import { ORDER_WRITES_THROTTLED_BY_INDEXES } from '../../infra/constructs/service-alarms';
import type { Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import {
  arnOf,
  logicalId,
  onlyResource,
  ref,
  stageNamed,
  synthesiseStages,
  type Synthesised,
  type SynthesisedStage,
} from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const TABLE_IDS = Object.keys(TABLES) as TableId[];

describe('the account stack', () => {
  test('is the one owner of the API Gateway account settings, naming a CloudWatch role kept on deletion', () => {
    const { template, stack } = synthesised.account;
    template.resourceCountIs('AWS::ApiGateway::Account', 1);
    template.hasResourceProperties('AWS::ApiGateway::Account', { CloudWatchRoleArn: arnOf(stack.cloudWatchRole) });
    template.hasResource('AWS::IAM::Role', {
      Properties: {
        AssumeRolePolicyDocument: Match.objectLike({
          Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
        }),
        ManagedPolicyArns: [
          {
            'Fn::Join': [
              '',
              ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'],
            ],
          },
        ],
      },
      DeletionPolicy: 'Retain',
    });
  });

  test('names the role it set in an output, which the stage templates read', () => {
    const { template, stack } = synthesised.account;
    template.hasOutput(CLOUDWATCH_ROLE_OUTPUT, { Value: arnOf(stack.cloudWatchRole) });
    expect(stack.stackName).toBe(ACCOUNT_STACK_NAME);
  });
});

describe.each(['staging', 'prod'] as const)('%s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);
  const config = STAGES[stageName];

  describe('tables', () => {
    test('are exactly the tables of lib/contract/tables.ts', () => {
      stage().template.resourceCountIs('AWS::DynamoDB::Table', TABLE_IDS.length);
    });

    test.each(TABLE_IDS)('%s is on-demand, recoverable, encrypted and unnamed', (id) => {
      const { template, stack } = stage();
      const spec = TABLES[id];
      const table = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables[id])];
      expect(table).toBeDefined();
      expect(table?.Properties).toMatchObject({
        KeySchema: [
          { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
          ...('sortKey' in spec ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : []),
        ],
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
      });
      // The table's key first, then its indexes' keys (test/infra/v2.spec.ts checks the indexes).
      expect((table?.Properties?.AttributeDefinitions as unknown[] | undefined)?.[0]).toEqual({
        AttributeName: spec.partitionKey.name,
        AttributeType: spec.partitionKey.type,
      });
      expect(table?.Properties?.TableName).toBeUndefined();
      const ttl = 'ttlAttribute' in spec ? { AttributeName: spec.ttlAttribute, Enabled: true } : undefined;
      expect(table?.Properties?.TimeToLiveSpecification).toEqual(ttl);
    });

    test.each(TABLE_IDS)(
      stageName === 'prod' ? '%s is retained and deletion-protected' : '%s follows the staging config',
      (id) => {
        const { template, stack } = stage();
        const table = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables[id])];
        const keep = stageName === 'prod' || !config.disposableData;
        expect(table?.Properties?.DeletionProtectionEnabled).toBe(keep);
        expect(table?.DeletionPolicy).toBe(keep ? 'Retain' : 'Delete');
        expect(table?.UpdateReplacePolicy).toBe(keep ? 'Retain' : 'Delete');
      },
    );
  });

  describe('observability', () => {
    test('access logs are JSON lines in their own log group, without the Authorization header or the requested path', () => {
      const { template, stack } = stage();
      const { resource } = onlyResource(template, 'AWS::ApiGateway::Stage', { StageName: 'v1' });
      const setting = (resource.Properties as { AccessLogSetting: { DestinationArn: unknown; Format: string } })
        .AccessLogSetting;
      const accessLogs = stack.api.accessLogs;
      // The ARN API Gateway stores (no trailing `:*`), so drift detection does not flag the stage.
      expect(setting.DestinationArn).toEqual({
        'Fn::Join': ['', expect.arrayContaining([':log-group:', ref(accessLogs)])],
      });
      expect(JSON.stringify(setting.DestinationArn)).not.toContain(':*');
      const format = JSON.parse(setting.Format) as Record<string, string>;
      expect(format).toMatchObject({
        requestId: '$context.requestId',
        status: '$context.status',
        httpMethod: '$context.httpMethod',
        resourcePath: '$context.resourcePath',
        responseLatency: '$context.responseLatency',
        errorType: '$context.error.responseType',
      });
      expect(setting.Format).not.toMatch(/authorization|header/i);
      // A key a client puts in the URL would be logged with the path or query string as requested.
      expect(Object.values(format).filter((v) => /\$context\.(path|requestOverride|.*querystring)/i.test(v))).toEqual(
        [],
      );
      const logGroup = template.findResources('AWS::Logs::LogGroup')[logicalId(accessLogs)];
      expect(logGroup?.Properties?.RetentionInDays).toBe(config.logRetention);
    });

    test('execution logs go to a group of the stack, with the stage retention, created before the stage', () => {
      const { template, stack } = stage();
      const executionLogs = logicalId(stack.api.executionLogs);
      template.hasResource('AWS::Logs::LogGroup', {
        Properties: {
          LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', ref(stack.api.api), '/v1']] },
          RetentionInDays: config.logRetention,
        },
        DeletionPolicy: stageName === 'prod' ? 'Retain' : 'Delete',
      });
      const { resource } = onlyResource(template, 'AWS::ApiGateway::Stage', { StageName: 'v1' });
      expect(resource.DependsOn).toEqual(expect.arrayContaining([executionLogs]));
    });

    test('the execution log group can be imported as docs/deployment.md says, under a stable logical id', () => {
      const { template, stack } = stage();
      const id = logicalId(stack.api.executionLogs);
      // The id the upgrade's resource mapping names; the same in every stage, and never to change:
      // a new id would make CloudFormation create the group again, which exists.
      expect(id).toBe('ExecutionLogs6FEE23C8');
      const page = readFileSync(path.join(__dirname, '..', '..', 'docs', 'deployment.md'), 'utf8');
      expect(page).toContain(`{"${id}":{"LogGroupName":"%s"}}`);
      const group = template.toJSON().Resources[id] as Record<string, unknown> & {
        Properties: Record<string, unknown>;
      };
      // CloudFormation imports only a resource with a DeletionPolicy; the name is its identifier,
      // made only from the API (already in the deployed stack), and nothing else needs creating first.
      expect(group.DeletionPolicy).toBe(stageName === 'prod' ? 'Retain' : 'Delete');
      expect(group.UpdateReplacePolicy).toBe(group.DeletionPolicy);
      expect(group.DependsOn).toBeUndefined();
      expect(group.Properties.LogGroupName).toEqual({
        'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: 'ApiF70053CD' }, '/v1']],
      });
      expect(logicalId(stack.api.api)).toBe('ApiF70053CD');
    });

    test('execution logs are at INFO without data trace, with metrics and X-Ray tracing', () => {
      stage().template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: 'v1',
        TracingEnabled: true,
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            LoggingLevel: 'INFO',
            DataTraceEnabled: false,
            MetricsEnabled: true,
          }),
        ]),
      });
    });

    test('leaves the account-wide API Gateway settings to the account stack', () => {
      const { template, stack } = stage();
      template.resourceCountIs('AWS::ApiGateway::Account', 0);
      expect(
        template.findResources('AWS::IAM::Role', {
          Properties: {
            AssumeRolePolicyDocument: Match.objectLike({
              Statement: [Match.objectLike({ Principal: { Service: 'apigateway.amazonaws.com' } })],
            }),
          },
        }),
      ).toEqual({});
      expect(stack.dependencies).toContain(synthesised.account.stack);
    });

    test('states its dependency on the account stack in the assembly and in its own template', () => {
      const { template, stack } = stage();
      const manifest = JSON.parse(readFileSync(path.join(synthesised.assemblyDir, 'manifest.json'), 'utf8')) as {
        artifacts: Record<string, { dependencies?: string[] }>;
      };
      expect(manifest.artifacts[stack.artifactId]?.dependencies).toContain(ACCOUNT_STACK_NAME);
      // Read before the stage is made (the stage depends on the group): deployed without the
      // account stack, the template fails here, naming the stack, not on the stage.
      template.hasResource('AWS::Logs::LogGroup', {
        Properties: Match.objectLike({
          LogGroupName: Match.objectLike({
            'Fn::Join': Match.arrayWith([Match.arrayWith(['API-Gateway-Execution-Logs_'])]),
          }),
          Tags: [
            {
              Key: EXECUTION_LOGGING_ROLE_TAG,
              Value: { 'Fn::GetStackOutput': { StackName: ACCOUNT_STACK_NAME, OutputName: CLOUDWATCH_ROLE_OUTPUT } },
            },
            // Its stage, which tells its group from the other stage's (infra/pipeline/names.ts).
            { Key: STAGE_TAG, Value: stageName },
          ],
        }),
      });
    });

    const stageDimensions = (s: SynthesisedStage) => [
      { Name: 'ApiName', Value: `store-orders-${stageName}` },
      { Name: 'Stage', Value: ref(s.stack.api.api.deploymentStage) },
    ];
    const apiDimensions = (s: SynthesisedStage) => Match.arrayWith(stageDimensions(s));

    test('alarm on the 5XX rate of the stage', () => {
      const s = stage();
      s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: '5XXError',
        Statistic: 'Average',
        Dimensions: apiDimensions(s),
        Threshold: config.alarms.serverErrorRate,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    const latencyAlarms = (s: SynthesisedStage) =>
      Object.values(s.template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Latency' } }));

    test.each(ROUTES.filter((r) => !r.streaming).map((r) => [r.operationId, r] as const))(
      'alarm on the p99 latency of the buffered route %s alone',
      (_, route) => {
        const s = stage();
        s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/ApiGateway',
          MetricName: 'Latency',
          ExtendedStatistic: 'p99',
          Dimensions: Match.arrayWith(
            [
              ...stageDimensions(s),
              { Name: 'Method', Value: route.method },
              { Name: 'Resource', Value: route.path },
            ].sort((a, b) => a.Name.localeCompare(b.Name)),
          ),
          Threshold: config.alarms.p99LatencyMs,
        });
      },
    );

    test('no latency alarm counts a streamed answer, whose latency spans the whole stream', () => {
      const s = stage();
      const alarms = latencyAlarms(s);
      // v1's buffered routes, and v2's on its own stage (test/infra/v2.spec.ts).
      expect(alarms).toHaveLength([...ROUTES, ...V2_ROUTES].filter((r) => !r.streaming).length);
      // v2's GET /store/orders is buffered: only the same method and path on v1's API is streamed.
      const v1Api = s.stack.api.api.restApiName;
      const streamedPaths = ROUTES.filter((r) => r.streaming).map((r) => `${v1Api} ${r.method} ${r.path}`);
      for (const alarm of alarms) {
        const dimensions = alarm.Properties?.Dimensions as { Name: string; Value: unknown }[];
        const value = (name: string) => dimensions.find((d) => d.Name === name)?.Value;
        // A stage-wide alarm (no Method/Resource dimension) would include the streamed route.
        expect(value('Method')).toEqual(expect.any(String));
        expect(streamedPaths).not.toContain(
          `${String(value('ApiName'))} ${String(value('Method'))} ${String(value('Resource'))}`,
        );
      }
    });

    test.each(ROUTES.filter((r) => r.streaming).map((r) => [r.function] as const))(
      'alarm when an invocation of the streaming %s nears its timeout',
      (name) => {
        const { template, stack } = stage();
        const timeoutSeconds = FUNCTIONS[name].timeoutSeconds;
        const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions[name].function)];
        expect(fn?.Properties?.Timeout).toBe(timeoutSeconds);
        template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: 'Duration',
          Statistic: 'Maximum',
          Dimensions: [{ Name: 'FunctionName', Value: ref(stack.functions[name].function) }],
          Threshold: timeoutSeconds * 1000 * 0.8,
          ComparisonOperator: 'GreaterThanThreshold',
          EvaluationPeriods: 1,
          TreatMissingData: 'notBreaching',
        });
      },
    );

    const listingMetricAlarm = (template: SynthesisedStage['template'], metricName: string) =>
      onlyResource(template, 'AWS::CloudWatch::Alarm', { Namespace: 'StoreOrders', MetricName: metricName }).resource
        .Properties;

    test('alarm when the store nears what one compressed listing carries, on the largest listing, whatever the client', () => {
      const alarm = listingMetricAlarm(stage().template, 'ListedOrders');
      // 80 % of the orders in 200 MiB of gzip at the bytes an order of the largest gzip listing
      // as deployed in bench/results.json, read here from the raw record.
      const run = JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'bench', 'results.json'), 'utf8')) as {
        suites: Record<string, { handlers: { orders: number; coding: string; deployed: boolean; bytes: number }[] }>;
      };
      const gzip = (run.suites['listOrders at scale']?.handlers ?? [])
        .filter((h) => h.coding === 'gzip' && h.deployed)
        .sort((a, b) => b.orders - a.orders)[0];
      if (!gzip) throw new Error('bench/results.json has no gzip listing as deployed');
      expect(alarm).toMatchObject({
        Statistic: 'Maximum',
        Dimensions: expect.arrayContaining([
          { Name: 'service', Value: 'store-orders' },
          { Name: 'stage', Value: stageName },
        ]),
        Period: 300,
        Threshold: Math.floor(Math.floor((200 * 1024 * 1024) / (gzip.bytes / gzip.orders)) * 0.8),
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    test.each([
      ['ListedBytes', 'the JSON of a complete listing'],
      ['ListingResponseBytes', 'the bytes a listing sent, cut listings included'],
    ])('alarm when %s (%s) nears the 200 MB at which Lambda cuts a stream', (metricName) => {
      const alarm = listingMetricAlarm(stage().template, metricName);
      expect(alarm).toMatchObject({
        Statistic: 'Maximum',
        Dimensions: expect.arrayContaining([{ Name: 'stage', Value: stageName }]),
        Threshold: Math.floor(200 * 1024 * 1024 * 0.8),
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
      });
    });

    test('the duration alarm blames a slow client or CPU, and leaves the store size to the listing alarms', () => {
      const { template, stack } = stage();
      // The function's own duration alarm, not the rollback alarm on its alias (test/infra/releases.spec.ts).
      const duration = onlyResource(template, 'AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Dimensions: [{ Name: 'FunctionName', Value: ref(stack.functions['list-orders'].function) }],
      }).resource.Properties;
      expect(duration.AlarmDescription).toMatch(/client/);
      expect(duration.AlarmDescription).toMatch(/ListedOrders/);
      expect(listingMetricAlarm(stage().template, 'ListedOrders').AlarmDescription).not.toMatch(/client/);
    });

    test('alarm on authorizer failures, not on refused keys', () => {
      const { template, stack } = stage();
      const metric = {
        MetricNamespace: `store-orders/${stageName}`,
        MetricName: 'AuthorizerFailures',
        MetricValue: '1',
      };
      const authorizerLogs = ref(stack.functions.authorizer.logGroup);
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: authorizerLogs,
        FilterPattern: `{ ($.level = "ERROR") && ($.message = "${AUTHORIZER_FAILED_MESSAGE}") }`,
        MetricTransformations: [metric],
      });
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: authorizerLogs,
        FilterPattern: '"Task timed out"',
        MetricTransformations: [metric],
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: metric.MetricNamespace,
        MetricName: metric.MetricName,
        Statistic: 'Sum',
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      // Lambda's Errors counts every refused key (a thrown Unauthorized): no alarm may watch the authorizer's.
      const authorizer = { Name: 'FunctionName', Value: ref(stack.functions.authorizer.function) };
      const errors = Object.values(
        template.findResources('AWS::CloudWatch::Alarm', { Properties: { MetricName: 'Errors' } }),
      ).map((alarm) => alarm.Properties?.Dimensions as unknown[]);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.filter((dimensions) => JSON.stringify(dimensions).includes(JSON.stringify(authorizer)))).toEqual(
        [],
      );
    });

    test('alarm on Lambda throttles of every service function', () => {
      const { template, stack } = stage();
      const throttled = Object.values(stack.functions).map((fn) =>
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'AWS/Lambda',
              MetricName: 'Throttles',
              Dimensions: [{ Name: 'FunctionName', Value: ref(fn.function) }],
            },
            Stat: 'Sum',
          }),
          ReturnData: false,
        }),
      );
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: Match.arrayWith([Match.objectLike({ Expression: Match.stringLikeRegexp('\\+') }), ...throttled]),
        Threshold: 1,
      });
    });

    test("alarm on order writes throttled by the orders table's indexes (GSI back-pressure), by that name", () => {
      const { template, stack } = stage();
      const alarm = stack.alarms.node.findChild(ORDER_WRITES_THROTTLED_BY_INDEXES) as Alarm;
      const indexes = TABLES.orders.indexes.map((index) =>
        Match.objectLike({
          MetricStat: Match.objectLike({
            Metric: {
              Namespace: 'AWS/DynamoDB',
              MetricName: 'WriteThrottleEvents',
              Dimensions: Match.arrayWith([
                { Name: 'GlobalSecondaryIndexName', Value: index.name },
                { Name: 'TableName', Value: ref(stack.tables.tables.orders) },
              ]),
            },
            Stat: 'Sum',
          }),
          ReturnData: false,
        }),
      );
      expect(indexes.length).toBeGreaterThan(1);
      const properties = template.findResources('AWS::CloudWatch::Alarm')[logicalId(alarm)]?.Properties;
      expect(properties).toMatchObject({
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        // FILL can hide a late data point of the newest period: one breaching period of the last two fires.
        EvaluationPeriods: 2,
        DatapointsToAlarm: 1,
      });
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Metrics: Match.arrayWith([Match.objectLike({ ReturnData: true }), ...indexes]),
        EvaluationPeriods: 2,
      });
      expect(logicalId(alarm)).toMatch(/OrderWritesThrottledByIndexes/);
    });

    // A sum over metrics of which only some have data in a period must still have a value: each term
    // is FILLed with 0, so one index (or one function) throttling alone fires its alarm.
    test.each([
      ["the indexes' write throttles", ORDER_WRITES_THROTTLED_BY_INDEXES],
      ["the functions' throttles", 'FunctionThrottles'],
    ])('the sum of %s fills every term with 0', (_, id) => {
      const { template, stack } = stage();
      const alarm = stack.alarms.node.findChild(id) as Alarm;
      const metrics = (template.findResources('AWS::CloudWatch::Alarm')[logicalId(alarm)]?.Properties?.Metrics ??
        []) as { Id: string; Expression?: string; MetricStat?: unknown }[];
      const terms = metrics.filter((m) => m.MetricStat !== undefined).map((m) => m.Id);
      expect(terms.length).toBeGreaterThan(1);
      const expression = metrics.find((m) => m.Expression !== undefined)?.Expression;
      expect(expression).toBe(terms.map((term) => `FILL(${term}, 0)`).join(' + '));
    });

    test('alarms notify the configured topic, or nobody', () => {
      const { template, stack } = stage();
      const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
      // Authorizer failures, throttles, two store-size alarms, the bytes a listing sent (cut ones
      // included), order writes throttled by the indexes, the web ACL's blocks; per API (v1, v2) its
      // 5XX rate, and one per route (latency or duration); two rollback alarms (errors, latency) per
      // function released by CodeDeploy, and the authorizer's refusal rate; the sync watch's five
      // (sync-watch.spec.ts); event delivery's seven (webhooks.spec.ts); the index-lag canary's, one
      // per index and one on its silence (index-canary.spec.ts).
      expect(alarms).toHaveLength(
        7 +
          stack.apis.length +
          ROUTES.length +
          V2_ROUTES.length +
          2 * Object.keys(stack.releases.groups).length +
          1 +
          5 +
          7 +
          Object.keys(ORDER_INDEXES).length +
          1,
      );
      for (const alarm of alarms) {
        const expected = config.alarms.topicArn ? [config.alarms.topicArn] : undefined;
        expect(alarm.Properties?.AlarmActions).toEqual(expected);
        expect(alarm.Properties?.OKActions).toEqual(expected);
      }
    });
  });

  describe('outputs the admin command reads', () => {
    test('API URLs and id', () => {
      const { template, stack } = stage();
      template.hasOutput(API_URL_OUTPUT, { Value: Match.anyValue() });
      template.hasOutput(EXECUTE_API_URL_OUTPUT, {
        Value: { 'Fn::Join': ['', Match.arrayWith([ref(stack.api.api), ref(stack.api.api.deploymentStage), '/'])] },
      });
      template.hasOutput(REST_API_ID_OUTPUT, { Value: ref(stack.api.api) });
      // Without a custom domain, clients use the execute-api URL.
      const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
      if (!config.customDomain) expect(outputs[API_URL_OUTPUT]?.Value).toEqual(outputs[EXECUTE_API_URL_OUTPUT]?.Value);
    });

    test.each(TABLE_IDS)('the physical name of the %s table', (id) => {
      const { template, stack } = stage();
      template.hasOutput(TABLE_NAME_OUTPUTS[id], { Value: ref(stack.tables.tables[id]) });
    });

    test.each([...PLAN_NAMES])('the usage plan id of the %s tier', (plan) => {
      const { template, stack } = stage();
      template.hasOutput(USAGE_PLAN_ID_OUTPUTS[plan], { Value: ref(stack.api.usagePlans[plan]) });
    });
  });
});
