// The v2 listing's infrastructure: the orders table's indexes, the function's read-only grants, its
// cursor key, and its route on the deployed API: a RestApi of its own with stage v2, sharing v1's
// authorizer function, gateway answers, usage plans and custom domain (docs/design.md#deployed-apis).
// The custom-domain mapping is checked in stage-config.spec.ts, whose variants have a domain.
import { Match } from 'aws-cdk-lib/assertions';
import { ORDER_INDEXES, TABLES } from '../../lib/contract/tables';
import { CURSOR_KEY_SECRET_ENV, CURSOR_KEY_SECRET_OUTPUT } from '../../lib/contract/sync';
import { errorJson } from '../../lib/contract/errors';
import { PLAN_NAMES } from '../../lib/contract/plans';
import { BASE_PATH, binaryMediaTypesOf, ROUTES, V2_BASE_PATH, V2_ROUTES } from '../../lib/contract/routes';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE } from '../../lib/core/access/key-format';
import {
  ACCOUNT_STACK_NAME,
  CLOUDWATCH_ROLE_OUTPUT,
  integrationTimeoutSeconds,
  V2_API_URL_OUTPUT,
  V2_EXECUTE_API_URL_OUTPUT,
  V2_REST_API_ID_OUTPUT,
} from '../../lib/contract/deployment';
import { restApiName } from '../../infra/constructs/orders-api';
import { STAGE_TAG } from '../../infra/pipeline/names';
import { EXECUTION_LOGGING_ROLE_TAG } from '../../infra/service-app';
import { STAGES } from '../../infra/stages';
import { logicalId, onlyResource, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('v2 in %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('the orders table has both indexes, string keys, every attribute projected', () => {
    const { template, stack } = stage();
    const orders = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables.orders)];
    const props = orders?.Properties as {
      GlobalSecondaryIndexes: { IndexName: string; KeySchema: unknown; Projection: unknown }[];
      AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
    };
    const declared = TABLES.orders.indexes;
    expect(props.GlobalSecondaryIndexes).toHaveLength(declared.length);
    for (const index of Object.values(ORDER_INDEXES)) {
      expect(props.GlobalSecondaryIndexes).toContainEqual({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
      expect(props.AttributeDefinitions).toContainEqual({ AttributeName: index.partitionKey.name, AttributeType: 'S' });
      expect(props.AttributeDefinitions).toContainEqual({ AttributeName: index.sortKey.name, AttributeType: 'S' });
    }
  });

  test("list-orders-v2 may Scan the orders table, Query its indexes by name and read the index-lag canary's record, and write nothing to it", () => {
    const { template, stack } = stage();
    const role = stack.functions['list-orders-v2'].role;
    const orders = logicalId(stack.tables.tables.orders);
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(role)] } }));
    const onOrders = policies
      .flatMap(
        (p) =>
          (p.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }).PolicyDocument
            .Statement,
      )
      .filter((st) => JSON.stringify(st.Resource).includes(orders));
    const actions = onOrders.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
    // GetItem: the sentinel's record, which a walk's last page reads for its watermark.
    expect(actions.sort()).toEqual(['dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:Scan']);
    const query = JSON.stringify(onOrders.find((st) => st.Action === 'dynamodb:Query')?.Resource);
    for (const index of Object.values(ORDER_INDEXES)) expect(query).toContain(`/index/${index.name}`);
    expect(query).not.toContain('*');
  });

  test('its cursor key comes from a generated secret it reads at run time: the template and its configuration name only the ARN', () => {
    const { template, stack } = stage();
    const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions['list-orders-v2'].function)];
    const env = (fn?.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
    expect(env[CURSOR_KEY_SECRET_ENV]).toEqual(ref(stack.cursorKey));
    // No function's environment resolves a secret's value (it would show in the function's configuration).
    for (const other of Object.values(template.findResources('AWS::Lambda::Function')))
      expect(JSON.stringify(other.Properties)).not.toMatch(/resolve:secretsmanager/);
    expect(template.findResources('AWS::SecretsManager::Secret')[logicalId(stack.cursorKey)]?.Properties).toMatchObject(
      {
        GenerateSecretString: { PasswordLength: 64 },
      },
    );
    // Operators find it by this output to rotate it (docs/operations.md#the-v2-cursor-key).
    template.hasOutput(CURSOR_KEY_SECRET_OUTPUT, { Value: ref(stack.cursorKey) });
  });

  test('only list-orders-v2 may read the cursor key', () => {
    const { template, stack } = stage();
    const readers = Object.values(template.findResources('AWS::IAM::Policy')).filter((policy) =>
      (
        policy.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }
      ).PolicyDocument.Statement.some((st) => JSON.stringify(st.Resource) === JSON.stringify(ref(stack.cursorKey))),
    );
    expect(readers.map((policy) => (policy.Properties as { Roles: unknown }).Roles)).toEqual([
      [ref(stack.functions['list-orders-v2'].role)],
    ]);
  });
});

/** The logical ids v1's API had before v2 was deployed beside it: an update must not replace them. */
const V1_LOGICAL_IDS = {
  restApi: 'ApiF70053CD',
  stage: 'ApiDeploymentStagev102147F91',
  usagePlans: {
    free: 'ApiUsagePlanFree256CC719',
    pro: 'ApiUsagePlanPro24D338D6',
    business: 'ApiUsagePlanBusiness50B62649',
    enterprise: 'ApiUsagePlanEnterprise4556DBC2',
  },
} as const;

describe.each(['staging', 'prod'] as const)('the v2 API of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);
  const config = STAGES[stageName];
  const v2Stage = () => onlyResource(stage().template, 'AWS::ApiGateway::Stage', { StageName: 'v2' }).resource;
  const v1Stage = () => onlyResource(stage().template, 'AWS::ApiGateway::Stage', { StageName: 'v1' }).resource;

  test('is a regional RestApi of its own, its API key from the authorizer, deployed to the stage v2 alone', () => {
    const { template, stack } = stage();
    expect(stack.v2Api.basePath).toBe(V2_BASE_PATH);
    expect(logicalId(stack.v2Api.api)).not.toBe(logicalId(stack.api.api));
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: restApiName(stageName, V2_BASE_PATH),
      ApiKeySourceType: 'AUTHORIZER',
      EndpointConfiguration: { Types: ['REGIONAL'] },
    });
    expect(restApiName(stageName, V2_BASE_PATH)).toBe(`store-orders-${stageName}-v2`);
    template.resourceCountIs('AWS::ApiGateway::RestApi', 2);
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v2',
      RestApiId: ref(stack.v2Api.api),
      TracingEnabled: true,
    });
    const stages = template.findResources('AWS::ApiGateway::Stage', {
      Properties: { RestApiId: ref(stack.v2Api.api) },
    });
    expect(Object.keys(stages)).toEqual([logicalId(stack.v2Api.api.deploymentStage)]);
  });

  test('its RestApi has the binary media types a compressed page needs to reach clients as bytes; v1, streamed, none', () => {
    const { template } = stage();
    const v2Types = binaryMediaTypesOf(V2_ROUTES);
    expect(v2Types.length).toBeGreaterThan(0);
    expect(binaryMediaTypesOf(ROUTES)).toEqual([]);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: restApiName(stageName, V2_BASE_PATH),
      BinaryMediaTypes: [...v2Types],
    });
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      Name: `store-orders-${stageName}`,
      BinaryMediaTypes: Match.absent(),
    });
  });

  test("leaves v1's RestApi, stage and usage plans under the logical ids they were deployed with", () => {
    const { template, stack } = stage();
    expect(logicalId(stack.api.api)).toBe(V1_LOGICAL_IDS.restApi);
    expect(logicalId(stack.api.api.deploymentStage)).toBe(V1_LOGICAL_IDS.stage);
    for (const plan of PLAN_NAMES) expect(logicalId(stack.api.usagePlans[plan])).toBe(V1_LOGICAL_IDS.usagePlans[plan]);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { Name: `store-orders-${stageName}` });
    expect(v1Stage().Properties.RestApiId).toEqual({ Ref: V1_LOGICAL_IDS.restApi });
  });

  test('its stage has the same throttling, logging, metrics, tracing and access-log format as v1, into groups of its own', () => {
    const { template, stack } = stage();
    const settings = (props: Record<string, unknown>) => {
      const {
        RestApiId: _api,
        DeploymentId: _deployment,
        StageName: _name,
        AccessLogSetting,
        ...rest
      } = props as {
        AccessLogSetting: { DestinationArn: unknown; Format: string };
      } & Record<string, unknown>;
      return { ...rest, format: AccessLogSetting.Format };
    };
    expect(settings(v2Stage().Properties)).toEqual(settings(v1Stage().Properties));
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      StageName: 'v2',
      MethodSettings: Match.arrayWith([
        Match.objectLike({
          ThrottlingRateLimit: config.throttle.rateLimit,
          ThrottlingBurstLimit: config.throttle.burstLimit,
          LoggingLevel: 'INFO',
          DataTraceEnabled: false,
          MetricsEnabled: true,
        }),
      ]),
      AccessLogSetting: {
        DestinationArn: { 'Fn::Join': ['', Match.arrayWith([ref(stack.v2Api.accessLogs)])] },
      },
    });
    expect(stack.v2Api.accessLogs).not.toBe(stack.api.accessLogs);
    const groups = template.findResources('AWS::Logs::LogGroup');
    expect(groups[logicalId(stack.v2Api.accessLogs)]?.Properties?.RetentionInDays).toBe(config.logRetention);
  });

  test('its execution logs go to a group of the stack named for its API and stage, made before the stage', () => {
    const { template, stack } = stage();
    const id = logicalId(stack.v2Api.executionLogs);
    template.hasResource('AWS::Logs::LogGroup', {
      Properties: {
        LogGroupName: { 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', ref(stack.v2Api.api), '/v2']] },
        RetentionInDays: config.logRetention,
        // Deployed without the account stack, the template fails on this read, naming the stack.
        Tags: [
          {
            Key: EXECUTION_LOGGING_ROLE_TAG,
            Value: { 'Fn::GetStackOutput': { StackName: ACCOUNT_STACK_NAME, OutputName: CLOUDWATCH_ROLE_OUTPUT } },
          },
          { Key: STAGE_TAG, Value: stageName },
        ],
      },
      DeletionPolicy: config.disposableData ? 'Delete' : 'Retain',
    });
    expect(v2Stage().DependsOn).toEqual(expect.arrayContaining([id]));
  });

  test.each(V2_ROUTES.map((r) => [r.operationId, r] as const))(
    "%s is a buffered proxy to its function's alias, behind its own authorizer and an API key",
    (_, route) => {
      const { template, stack } = stage();
      expect(route.basePath).toBe(V2_BASE_PATH);
      const resource = stack.v2Api.api.root.resourceForPath(route.path);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        RestApiId: ref(stack.v2Api.api),
        ResourceId: ref(resource),
        HttpMethod: route.method,
        OperationName: route.operationId,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: ref(stack.v2Api.authorizer),
        ApiKeyRequired: true,
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          ResponseTransferMode: 'BUFFERED',
          TimeoutInMillis: integrationTimeoutSeconds(route.function, route.streaming) * 1000,
          Uri: {
            'Fn::Join': [
              '',
              Match.arrayWith([
                Match.stringLikeRegexp('/2015-03-31/functions/$'),
                ref(stack.functions[route.function].alias),
                '/invocations',
              ]),
            ],
          },
        },
      });
      // API Gateway may invoke the alias from this method of the v2 API.
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: ref(stack.functions[route.function].alias),
        Principal: 'apigateway.amazonaws.com',
        SourceArn: {
          'Fn::Join': [
            '',
            Match.arrayWith([
              ref(stack.v2Api.api),
              ref(stack.v2Api.api.deploymentStage),
              // A path parameter is `*` in the permission's ARN.
              `/${route.method}${route.path.replace(/\{[^}]+\}/g, '*')}`,
            ]),
          ],
        },
      });
    },
  );

  test("its authorizer is v1's function (the live alias), with the same header, pattern and cache", () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::ApiGateway::Authorizer', 2);
    const authorizer = (api: typeof stack.api) =>
      onlyResource(template, 'AWS::ApiGateway::Authorizer', { RestApiId: ref(api.api) }).resource.Properties;
    const { RestApiId: _v2, Name: _v2Name, ...v2 } = authorizer(stack.v2Api);
    const { RestApiId: _v1, Name: _v1Name, ...v1 } = authorizer(stack.api);
    expect(v2).toEqual(v1);
    expect(v2).toMatchObject({
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: AUTHORIZATION_HEADER_PATTERN_SOURCE,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
    });
    expect(JSON.stringify(v2.AuthorizerUri)).toContain(JSON.stringify(ref(stack.functions.authorizer.alias)));
  });

  test('serves the v2 routes and nothing of v1: one 405 method per routed path, answering with Allow', () => {
    const { template, stack } = stage();
    const methods = template.findResources('AWS::ApiGateway::Method', {
      Properties: { RestApiId: ref(stack.v2Api.api) },
    });
    const paths = [...new Set(V2_ROUTES.map((r) => r.path))];
    expect(Object.keys(methods)).toHaveLength(V2_ROUTES.length + paths.length);
    const operations = Object.values(methods).map((m) => m.Properties?.OperationName as string);
    for (const route of V2_ROUTES) expect(operations).toContain(route.operationId);
    for (const path of paths) {
      const allowed = V2_ROUTES.filter((r) => r.path === path).map((r) => r.method);
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        RestApiId: ref(stack.v2Api.api),
        ResourceId: ref(stack.v2Api.api.root.resourceForPath(path)),
        HttpMethod: 'ANY',
        AuthorizationType: 'NONE',
        ApiKeyRequired: false,
        Integration: Match.objectLike({
          Type: 'MOCK',
          IntegrationResponses: [
            Match.objectLike({
              StatusCode: '405',
              ResponseTemplates: { 'application/json': errorJson('METHOD_NOT_ALLOWED') },
              ResponseParameters: Match.objectLike({ 'method.response.header.Allow': `'${allowed.join(', ')}'` }),
            }),
          ],
        }),
      });
    }
  });

  test("answers with v1's gateway responses, the same Error bodies and headers for each type", () => {
    const { template, stack } = stage();
    const responses = (api: typeof stack.api) =>
      Object.fromEntries(
        Object.values(
          template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { RestApiId: ref(api.api) } }),
        ).map(({ Properties }) => {
          const { RestApiId: _api, ...rest } = Properties as { ResponseType: string } & Record<string, unknown>;
          return [rest.ResponseType, rest];
        }),
      );
    const v1 = responses(stack.api);
    expect(Object.keys(v1).length).toBeGreaterThan(0);
    expect(responses(stack.v2Api)).toEqual(v1);
  });

  test("is in each of v1's usage plans, so one key works on both, under one quota", () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', PLAN_NAMES.length);
    for (const plan of PLAN_NAMES) {
      expect(stack.v2Api.usagePlans[plan]).toBe(stack.api.usagePlans[plan]);
      template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `store-orders-${stageName}-${plan}`,
        ApiStages: [
          Match.objectLike({ ApiId: ref(stack.api.api), Stage: ref(stack.api.api.deploymentStage) }),
          Match.objectLike({ ApiId: ref(stack.v2Api.api), Stage: ref(stack.v2Api.api.deploymentStage) }),
        ],
      });
    }
  });

  test('its base URL, execute-api URL and API id are stack outputs', () => {
    const { template, stack } = stage();
    const executeApiUrl = {
      'Fn::Join': ['', Match.arrayWith([ref(stack.v2Api.api), ref(stack.v2Api.api.deploymentStage), '/'])],
    };
    template.hasOutput(V2_EXECUTE_API_URL_OUTPUT, { Value: executeApiUrl });
    template.hasOutput(V2_REST_API_ID_OUTPUT, { Value: ref(stack.v2Api.api) });
    // Without a custom domain, clients use the execute-api URL: another host than v1's.
    expect(config.customDomain).toBeUndefined();
    template.hasOutput(V2_API_URL_OUTPUT, { Value: executeApiUrl });
    expect(BASE_PATH).not.toBe(V2_BASE_PATH);
  });

  test("alarms on its stage's 5XX rate and on each buffered v2 route's p99 latency", () => {
    const { template, stack } = stage();
    const stageDimensions = [
      { Name: 'ApiName', Value: restApiName(stageName, V2_BASE_PATH) },
      { Name: 'Stage', Value: ref(stack.v2Api.api.deploymentStage) },
    ];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/ApiGateway',
      MetricName: '5XXError',
      Statistic: 'Average',
      Dimensions: Match.arrayWith(stageDimensions),
      Threshold: config.alarms.serverErrorRate,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
    });
    for (const route of V2_ROUTES.filter((r) => !r.streaming)) {
      template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/ApiGateway',
        MetricName: 'Latency',
        ExtendedStatistic: 'p99',
        Dimensions: [
          ...stageDimensions,
          { Name: 'Method', Value: route.method },
          { Name: 'Resource', Value: route.path },
        ].sort((a, b) => a.Name.localeCompare(b.Name)),
        Threshold: config.alarms.p99LatencyMs,
      });
    }
  });
});
