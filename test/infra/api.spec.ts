import { Match } from 'aws-cdk-lib/assertions';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE, generateApiKey } from '../../lib/core/access/key-format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { ERRORS, errorJson, INSUFFICIENT_SCOPE_WWW_AUTHENTICATE } from '../../lib/contract/errors';
import { PLAN_LIMITS, PLAN_NAMES, usagePlanBackstop } from '../../lib/contract/plans';
import { ROUTES, V2_ROUTES } from '../../lib/contract/routes';
import { METHOD_NOT_ALLOWED_CONTENT_TYPES } from '../../lib/contract/gateway-responses';
import { STAGES } from '../../infra/stages';
import { revocationDays } from '../../lib/core/limiter/rules';
import { arnOf, logicalId, onlyResource, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const routedPaths = [...new Set(ROUTES.map((r) => r.path))];

describe.each(['staging', 'prod'] as const)('API of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('every API (v1, v2) is a regional REST API whose API key comes from the authorizer', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::ApiGateway::RestApi', stack.apis.length);
    for (const { api } of stack.apis) {
      const { id, resource } = onlyResource(template, 'AWS::ApiGateway::RestApi', { Name: api.restApiName });
      expect(id).toBe(logicalId(api));
      expect(resource.Properties).toMatchObject({
        ApiKeySourceType: 'AUTHORIZER',
        EndpointConfiguration: { Types: ['REGIONAL'] },
      });
    }
  });

  test('is deployed to the stage v1, so the URL ends in /v1; each API has one stage, named for its prefix', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::ApiGateway::Stage', stack.apis.length);
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'v1', RestApiId: ref(stack.api.api) });
    for (const api of stack.apis) {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: api.basePath.slice(1),
        RestApiId: ref(api.api),
      });
    }
  });

  test('has a TOKEN authorizer on the Authorization header with the key-format regex and a short cache', () => {
    const { template, stack } = stage();
    expect(AUTHORIZER_CACHE_TTL_SECONDS).toBeLessThanOrEqual(300);
    // One per API (each RestApi has its own), all invoking the one authorizer function (v2.spec.ts).
    template.resourceCountIs('AWS::ApiGateway::Authorizer', stack.apis.length);
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      RestApiId: ref(stack.api.api),
      Type: 'TOKEN',
      IdentitySource: 'method.request.header.Authorization',
      IdentityValidationExpression: AUTHORIZATION_HEADER_PATTERN_SOURCE,
      AuthorizerResultTtlInSeconds: AUTHORIZER_CACHE_TTL_SECONDS,
      AuthorizerUri: Match.objectLike({
        // The live alias, which a release shifts, never the function itself ($LATEST).
        'Fn::Join': ['', Match.arrayWith([ref(stack.functions.authorizer.alias)])],
      }),
    });
    // The pattern API Gateway applies admits a real key and refuses other schemes.
    const pattern = new RegExp(AUTHORIZATION_HEADER_PATTERN_SOURCE);
    expect(pattern.test(`Bearer ${generateApiKey()}`)).toBe(true);
    expect(pattern.test('Basic dXNlcjpwYXNz')).toBe(false);
  });

  test("a revoked key is refused while API Gateway caches its authorization: each authorizer's cache time is one the revocation marks cover, and every keyed route's function may write the key's limiter item", () => {
    const { template, stack } = stage();
    const authorizers = Object.values(template.findResources('AWS::ApiGateway::Authorizer'));
    expect(authorizers).toHaveLength(stack.apis.length);
    for (const authorizer of authorizers) {
      const ttl = (authorizer.Properties as { AuthorizerResultTtlInSeconds: number }).AuthorizerResultTtlInSeconds;
      // Unchanged by revocation: the cache keeps saving valid keys' lookups.
      expect(ttl).toBe(AUTHORIZER_CACHE_TTL_SECONDS);
      // A revoke at the last second of a day marks the next day too, far enough for the cache.
      const lastSecond = Date.parse('2026-11-22T23:59:59Z') / 1000;
      const marked = revocationDays(lastSecond, ttl);
      expect(marked.at(-1)?.resetAt).toBeGreaterThan(lastSecond + ttl);
    }
    // The mark is met by the admitting write every request makes: its function may make it.
    const table = JSON.stringify(arnOf(stack.tables.tables.rateLimits));
    for (const route of [...ROUTES, ...V2_ROUTES]) {
      const role = stack.functions[route.function].role;
      const policies = Object.values(
        template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(role)] } }),
      );
      const statements = policies.flatMap(
        (policy) =>
          (policy.Properties as { PolicyDocument: { Statement: { Action: string | string[]; Resource: unknown }[] } })
            .PolicyDocument.Statement,
      );
      expect(
        statements.some(
          (st) =>
            [st.Action].flat().includes('dynamodb:UpdateItem') &&
            [st.Resource].flat().some((r) => JSON.stringify(r) === table),
        ),
      ).toBe(true);
    }
  });

  test.each(ROUTES.map((r) => [r.operationId, r] as const))(
    'route %s is built from the route table, behind the authorizer and an API key',
    (_, route) => {
      const { template, stack } = stage();
      const resource = stack.api.api.root.resourceForPath(route.path);
      expect(resource.path).toBe(route.path);
      const alias = stack.functions[route.function].alias;
      template.hasResourceProperties('AWS::ApiGateway::Method', {
        RestApiId: ref(stack.api.api),
        HttpMethod: route.method,
        ResourceId: ref(resource),
        OperationName: route.operationId,
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: logicalId(stack.api.authorizer) },
        ApiKeyRequired: true,
        Integration: {
          Type: 'AWS_PROXY',
          IntegrationHttpMethod: 'POST',
          ResponseTransferMode: route.streaming ? 'STREAM' : 'BUFFERED',
          Uri: {
            'Fn::Join': [
              '',
              Match.arrayWith([
                Match.stringLikeRegexp(route.streaming ? '/2021-11-15/functions/$' : '/2015-03-31/functions/$'),
                ref(alias),
                route.streaming ? '/response-streaming-invocations' : '/invocations',
              ]),
            ],
          },
        },
      });
    },
  );

  test.each(ROUTES.map((r) => [r.operationId, r] as const))(
    'route %s gives its function time to answer, within what API Gateway allows',
    (_, route) => {
      const { template, stack } = stage();
      const method = onlyResource(template, 'AWS::ApiGateway::Method', { OperationName: route.operationId });
      const integrationMs = (method.resource.Properties.Integration as { TimeoutInMillis: number }).TimeoutInMillis;
      const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions[route.function].function)];
      const functionMs = (fn?.Properties?.Timeout as number) * 1000;
      // The function stops first, so it (not API Gateway) decides what a slow call answers.
      expect(functionMs).toBeLessThan(integrationMs);
      // API Gateway's limits: 29 s for a buffered answer, 15 minutes for a streamed one.
      expect(integrationMs).toBeLessThanOrEqual(route.streaming ? 15 * 60_000 : 29_000);
    },
  );

  test('has exactly the routes of the table plus one 405 method per routed path', () => {
    const { template, stack } = stage();
    const methods = template.findResources('AWS::ApiGateway::Method', {
      Properties: { RestApiId: ref(stack.api.api) },
    });
    expect(Object.keys(methods)).toHaveLength(ROUTES.length + routedPaths.length);
    // And v2's (test/infra/v2.spec.ts), on its own API: no other method anywhere.
    const v2Paths = new Set(V2_ROUTES.map((r) => r.path)).size;
    template.resourceCountIs(
      'AWS::ApiGateway::Method',
      ROUTES.length + routedPaths.length + V2_ROUTES.length + v2Paths,
    );
  });

  test.each(routedPaths)('any other method on %s is answered 405 with an Error body and Allow', (path) => {
    const { template, stack } = stage();
    const allowed = ROUTES.filter((r) => r.path === path).map((r) => r.method);
    const body = errorJson('METHOD_NOT_ALLOWED');
    // A form, a text or a multipart body gets the 405 with Allow, like a JSON one.
    expect(METHOD_NOT_ALLOWED_CONTENT_TYPES).toEqual(
      expect.arrayContaining([
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ]),
    );
    expect(JSON.parse(body)).toEqual({ code: 'METHOD_NOT_ALLOWED', message: expect.any(String), status: 405 });
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'ANY',
      ResourceId: ref(stack.api.api.root.resourceForPath(path)),
      AuthorizationType: 'NONE',
      AuthorizerId: Match.absent(),
      ApiKeyRequired: false,
      Integration: {
        Type: 'MOCK',
        // A content type without a template is refused (415, answered as 405 below), never passed
        // through to a MOCK that could not read a status code from it (a 500).
        PassthroughBehavior: 'NEVER',
        RequestTemplates: Object.fromEntries(METHOD_NOT_ALLOWED_CONTENT_TYPES.map((t) => [t, '{"statusCode": 405}'])),
        IntegrationResponses: [
          {
            StatusCode: '405',
            ResponseTemplates: { 'application/json': body },
            ResponseParameters: {
              'method.response.header.Content-Type': "'application/json'",
              'method.response.header.Allow': `'${allowed.join(', ')}'`,
            },
          },
        ],
      },
      MethodResponses: [
        {
          StatusCode: '405',
          ResponseParameters: {
            'method.response.header.Content-Type': true,
            'method.response.header.Allow': true,
          },
        },
      ],
    });
  });

  test('has one usage plan per tier, bound to the v1 stage and then the v2 stage, never stricter than the plan', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::ApiGateway::UsagePlan', PLAN_NAMES.length);
    for (const plan of PLAN_NAMES) {
      const backstop = usagePlanBackstop(plan);
      const { resource } = onlyResource(template, 'AWS::ApiGateway::UsagePlan', {
        UsagePlanName: `store-orders-${stageName}-${plan}`,
        ApiStages: stack.apis.map((api) => ({
          ApiId: ref(api.api),
          Stage: ref(api.api.deploymentStage),
          Throttle: {},
        })),
        Throttle: backstop.throttle
          ? { RateLimit: backstop.throttle.rateLimit, BurstLimit: backstop.throttle.burstLimit }
          : Match.absent(),
        Quota: backstop.quotaPerDay ? { Limit: backstop.quotaPerDay, Period: 'DAY' } : Match.absent(),
      });
      if (plan === 'enterprise') continue;
      const limits = PLAN_LIMITS[plan];
      const props = resource.Properties as {
        Throttle: { RateLimit: number; BurstLimit: number };
        Quota: { Limit: number };
      };
      expect(props.Throttle.RateLimit * 60).toBeGreaterThanOrEqual(limits.perMinute);
      // Two whole windows back to back (end of one, start of the next) fit in the burst.
      expect(props.Throttle.BurstLimit).toBeGreaterThanOrEqual(2 * limits.perMinute);
      expect(props.Quota.Limit).toBeGreaterThanOrEqual(limits.perDay);
    }
  });

  test('throttles each stage by default, never more strictly than the most generous usage plan', () => {
    const { template, stack } = stage();
    const { throttle } = STAGES[stageName];
    for (const api of stack.apis) {
      template.hasResourceProperties('AWS::ApiGateway::Stage', {
        RestApiId: ref(api.api),
        MethodSettings: Match.arrayWith([
          Match.objectLike({
            HttpMethod: '*',
            ResourcePath: '/*',
            ThrottlingRateLimit: throttle.rateLimit,
            ThrottlingBurstLimit: throttle.burstLimit,
          }),
        ]),
      });
    }
    for (const plan of PLAN_NAMES) {
      const planThrottle = usagePlanBackstop(plan).throttle;
      if (!planThrottle) continue;
      expect(throttle.rateLimit).toBeGreaterThanOrEqual(planThrottle.rateLimit);
      expect(throttle.burstLimit).toBeGreaterThanOrEqual(planThrottle.burstLimit);
    }
  });

  describe('gateway responses', () => {
    const expectations = [
      ['UNAUTHORIZED', 401, 'UNAUTHORIZED', { 'WWW-Authenticate': 'Bearer' }],
      // The authorizer's policy denies only what a key's scope leaves out (a read-only key's DELETE).
      ['ACCESS_DENIED', 403, 'INSUFFICIENT_SCOPE', { 'WWW-Authenticate': INSUFFICIENT_SCOPE_WWW_AUTHENTICATE }],
      ['INVALID_API_KEY', 401, 'UNAUTHORIZED', { 'WWW-Authenticate': 'Bearer' }],
      ['MISSING_AUTHENTICATION_TOKEN', 404, 'NOT_FOUND', {}],
      ['THROTTLED', 429, 'RATE_LIMITED', { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) }],
      ['QUOTA_EXCEEDED', 429, 'QUOTA_EXCEEDED', { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) }],
      ['AUTHORIZER_FAILURE', 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) }],
      [
        'AUTHORIZER_CONFIGURATION_ERROR',
        503,
        'SERVICE_UNAVAILABLE',
        { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) },
      ],
      // Lambda's throttle (list-orders' reserved concurrency full): come back shortly, not a bug.
      ['INTEGRATION_FAILURE', 503, 'SERVICE_UNAVAILABLE', { 'Retry-After': expect.stringMatching(/^[1-9]\d*$/) }],
      ['UNSUPPORTED_MEDIA_TYPE', 405, 'METHOD_NOT_ALLOWED', {}],
      ['DEFAULT_5XX', 500, 'INTERNAL_ERROR', {}],
    ] as const;

    // v1's; v2's are the same, type by type (test/infra/v2.spec.ts).
    test.each(expectations)('%s is %i %s with a JSON Error body', (type, status, code, headers) => {
      const { template, stack } = stage();
      const { resource } = onlyResource(template, 'AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        RestApiId: ref(stack.api.api),
      });
      const props = resource.Properties as {
        StatusCode: string;
        ResponseParameters: Record<string, string>;
        ResponseTemplates: Record<string, string>;
      };
      expect(props.StatusCode).toBe(String(status));
      expect(props.ResponseTemplates['application/json']).toBe(errorJson(code));
      const sent = Object.fromEntries(
        Object.entries(props.ResponseParameters).map(([k, v]) => [
          k.replace('gatewayresponse.header.', ''),
          v.slice(1, -1),
        ]),
      );
      expect(sent).toEqual({ 'Content-Type': 'application/json', ...headers });
    });

    test('DEFAULT_4XX answers a 4xx Error body', () => {
      const { resource } = onlyResource(stage().template, 'AWS::ApiGateway::GatewayResponse', {
        ResponseType: 'DEFAULT_4XX',
        RestApiId: ref(stage().stack.api.api),
      });
      const props = resource.Properties as { StatusCode: string; ResponseTemplates: Record<string, string> };
      expect(Number(props.StatusCode)).toBeGreaterThanOrEqual(400);
      expect(Number(props.StatusCode)).toBeLessThan(500);
    });

    test('every gateway response sends an Error body whose status is the status sent', () => {
      const responses = Object.values(stage().template.findResources('AWS::ApiGateway::GatewayResponse'));
      expect(responses.length).toBeGreaterThanOrEqual(expectations.length + 1);
      for (const { Properties } of responses) {
        const props = Properties as {
          StatusCode: string;
          ResponseParameters: Record<string, string>;
          ResponseTemplates: Record<string, string>;
        };
        const body = JSON.parse(props.ResponseTemplates['application/json'] ?? '') as {
          code: keyof typeof ERRORS;
          status: number;
        };
        expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
        expect(body.status).toBe(Number(props.StatusCode));
        expect(ERRORS[body.code].status).toBe(body.status);
        expect(props.ResponseParameters['gatewayresponse.header.Content-Type']).toBe("'application/json'");
      }
    });
  });
});
