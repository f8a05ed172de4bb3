// The web ACL in front of each stage's APIs (infra/constructs/address-firewall.ts): its rate-based
// rule per client address from the declared limit, its answer (the service's Error body), its
// associations with both API stages, and the alarm on what it blocks.
import { Match, Template } from 'aws-cdk-lib/assertions';
import { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { App, Stack } from 'aws-cdk-lib/core';
import { ADDRESS_LIMIT, ADDRESS_LIMITED_ANSWER, WAF_RATE_RULE } from '../../lib/contract/address-limit';
import { ERRORS, errorJson } from '../../lib/contract/errors';
import { ADDRESS_RULE_NAME, AddressFirewall } from '../../infra/constructs/address-firewall';
import { arnOf, logicalId, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('web ACL of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('one regional web ACL that allows by default and blocks an address over the declared limit, counted per client IP', () => {
    const { template } = stage();
    template.resourceCountIs('AWS::WAFv2::WebACL', 1);
    template.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'REGIONAL',
      DefaultAction: { Allow: {} },
      VisibilityConfig: Match.objectLike({ CloudWatchMetricsEnabled: true, SampledRequestsEnabled: true }),
      Rules: [
        Match.objectLike({
          Name: ADDRESS_RULE_NAME,
          Priority: 0,
          Statement: {
            RateBasedStatement: {
              AggregateKeyType: 'IP',
              Limit: ADDRESS_LIMIT.limit,
              EvaluationWindowSec: ADDRESS_LIMIT.windowSeconds,
            },
          },
          VisibilityConfig: {
            CloudWatchMetricsEnabled: true,
            SampledRequestsEnabled: true,
            MetricName: ADDRESS_RULE_NAME,
          },
        }),
      ],
    });
  });

  test("the block answers the service's Error body as JSON, with the declared status and Retry-After", () => {
    const { template } = stage();
    const [acl] = Object.values(template.findResources('AWS::WAFv2::WebACL')) as {
      Properties: {
        CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
        Rules: { Action: { Block: { CustomResponse: Record<string, unknown> } } }[];
      };
    }[];
    const response = acl?.Properties.Rules[0]?.Action.Block.CustomResponse;
    expect(response).toEqual({
      ResponseCode: ERRORS[ADDRESS_LIMITED_ANSWER.code].status,
      CustomResponseBodyKey: expect.any(String) as unknown,
      ResponseHeaders: Object.entries(ADDRESS_LIMITED_ANSWER.headers).map(([Name, Value]) => ({ Name, Value })),
    });
    const body = acl?.Properties.CustomResponseBodies[String(response?.CustomResponseBodyKey)];
    expect(body).toEqual({ ContentType: 'APPLICATION_JSON', Content: errorJson('ADDRESS_RATE_LIMITED') });
    expect(JSON.parse(body?.Content ?? '')).toEqual({
      code: 'ADDRESS_RATE_LIMITED',
      message: ERRORS.ADDRESS_RATE_LIMITED.message,
      status: 429,
    });
  });

  test("is associated with every API's stage (v1 and v2), by the stage's ARN", () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', stack.apis.length);
    for (const { api } of stack.apis) {
      template.hasResourceProperties('AWS::WAFv2::WebACLAssociation', {
        WebACLArn: arnOf(stack.firewall.webAcl),
        ResourceArn: {
          'Fn::Join': [
            '',
            Match.arrayWith([Match.stringLikeRegexp('::/restapis/$'), ref(api), '/stages/', ref(api.deploymentStage)]),
          ],
        },
      });
    }
  });

  test('alarms when the rule blocks, on its own metric', () => {
    const { template, stack } = stage();
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/WAFV2',
      MetricName: 'BlockedRequests',
      Statistic: 'Sum',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      Dimensions: Match.arrayWith([
        { Name: 'Rule', Value: ADDRESS_RULE_NAME },
        {
          Name: 'WebACL',
          Value: { 'Fn::Select': [0, { 'Fn::Split': ['|', { Ref: logicalId(stack.firewall.webAcl) }] }] },
        },
      ]),
    });
  });
});

test('a limit WAF would refuse fails the synthesis, naming what it takes', () => {
  const stack = new Stack(new App(), 'Limits');
  const api = new RestApi(stack, 'Api');
  api.root.addMethod('GET');
  expect(
    () =>
      new AddressFirewall(stack, 'Firewall', {
        stageName: 'test',
        apiStages: { v1: api.deploymentStage },
        limit: { ...ADDRESS_LIMIT, limit: WAF_RATE_RULE.minLimit - 1 },
      }),
  ).toThrow(/whole number from 10/);
  // The declared limit builds.
  new AddressFirewall(stack, 'Valid', { stageName: 'test', apiStages: { v1: api.deploymentStage } });
  Template.fromStack(stack).resourceCountIs('AWS::WAFv2::WebACLAssociation', 1);
});
