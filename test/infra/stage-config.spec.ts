import { Aspects } from 'aws-cdk-lib/core';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import * as path from 'node:path';
import {
  alarmTopicVariable,
  API_URL_OUTPUT,
  stackNameFor,
  STAGE_NAMES,
  V2_API_URL_OUTPUT,
} from '../../lib/contract/deployment';
import { StoreOrdersStack } from '../../infra/stack';
import { ROLLBACK_ALARM_MINUTES, stageConfig, STAGES, validateConfig, type StageConfig } from '../../infra/stages';
import { notificationProblem } from '../../tools/deploy/notification';
import { ref, synthesiseStages, synthesisMessages, testApp } from './synth';

const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-0000-0000-000000000000';
const ZONE = { hostedZoneId: 'Z0123456789ABCDEFGHIJ', zoneName: 'example.com' };
const TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:store-orders-alarms';

interface Variant {
  stack: StoreOrdersStack;
  template: Template;
}

/**
 * Variants of the real stage configs, checked by cdk-nag like the real ones, in one app: one
 * synth (and one start of CDK's template validation engine) for the file.
 */
function synthVariants<K extends string>(configs: Record<K, StageConfig>): Record<K, Variant> {
  const app = testApp();
  const stacks = Object.entries<StageConfig>(configs).map(
    ([name, config]) => [name, new StoreOrdersStack(app, `Variant-${name}`, { config })] as const,
  );
  Aspects.of(app).add(new AwsSolutionsChecks());
  Aspects.of(app).add(new ServerlessChecks());
  app.synth();
  return Object.fromEntries(
    stacks.map(([name, stack]) => [name, { stack, template: Template.fromStack(stack) }]),
  ) as Record<K, Variant>;
}

/**
 * Two stacks carry the four options (each stack's cost is seconds of construction, cdk-nag and
 * validation): prod with its own certificate and an alarm topic, staging with an issued
 * certificate and an alarm email. The options touch different resources, so each test reads its
 * option's resources in the stack that has it.
 */
let prod: Variant;
let staging: Variant;
beforeAll(() => {
  ({ prod, staging } = synthVariants({
    // The topic as the pipeline gives it: the environment variable cdk synth runs with.
    prod: {
      ...stageConfig('prod', { [alarmTopicVariable('prod')]: TOPIC_ARN }),
      customDomain: { domainName: 'api.example.com', certificateArn: CERTIFICATE_ARN, hostedZone: ZONE },
    },
    staging: {
      ...STAGES.staging,
      customDomain: { domainName: 'staging.api.example.com', hostedZone: ZONE },
      alarms: { ...STAGES.staging.alarms, email: 'oncall@example.com' },
    },
  }));
});

function expectNagClean(stack: StoreOrdersStack): void {
  for (const pack of ['AwsSolutions-.*', 'Serverless-.*']) {
    expect(synthesisMessages(stack, 'error', pack)).toEqual([]);
    expect(synthesisMessages(stack, 'warning', pack)).toEqual([]);
  }
}

describe('the stages as configured', () => {
  test('there are exactly staging and prod, each config naming its own stage', () => {
    expect(Object.keys(STAGES).sort()).toEqual([...STAGE_NAMES].sort());
    for (const stage of STAGE_NAMES) expect(STAGES[stage].stage).toBe(stage);
  });

  test('prod never has disposable data', () => {
    expect(STAGES.prod.disposableData).toBe(false);
  });
});

describe('a custom domain', () => {
  test('serves the v1 stage under the base path v1 on a regional TLS 1.2 domain', () => {
    const { template, stack } = prod;
    template.hasResourceProperties('AWS::ApiGateway::DomainName', {
      DomainName: 'api.example.com',
      RegionalCertificateArn: CERTIFICATE_ARN,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', {
      BasePath: 'v1',
      RestApiId: ref(stack.api.api),
      Stage: ref(stack.api.api.deploymentStage),
    });
  });

  test('serves the v2 API beside it, under the base path v2, on the same domain', () => {
    for (const { template, stack } of [prod, staging]) {
      const domain = stack.api.domain;
      if (!domain) throw new Error('the variant has no custom domain');
      template.resourceCountIs('AWS::ApiGateway::DomainName', 1);
      template.resourceCountIs('AWS::ApiGateway::BasePathMapping', 2);
      template.hasResourceProperties('AWS::ApiGateway::BasePathMapping', {
        BasePath: 'v2',
        DomainName: ref(domain),
        RestApiId: ref(stack.v2Api.api),
        Stage: ref(stack.v2Api.api.deploymentStage),
      });
    }
    expect(prod.stack.v2Api.domain).toBeUndefined();
    prod.template.hasOutput(V2_API_URL_OUTPUT, { Value: 'https://api.example.com/v2/' });
    staging.template.hasOutput(V2_API_URL_OUTPUT, { Value: 'https://staging.api.example.com/v2/' });
  });

  test('gets an alias record in the given zone, and becomes the URL clients are given', () => {
    const { template } = prod;
    template.hasResourceProperties('AWS::Route53::RecordSet', {
      Name: 'api.example.com.',
      Type: 'A',
      HostedZoneId: ZONE.hostedZoneId,
    });
    template.hasOutput(API_URL_OUTPUT, { Value: 'https://api.example.com/v1/' });
  });

  test('without a certificate ARN, a DNS-validated certificate is issued in the zone', () => {
    const { template } = staging;
    template.hasResourceProperties('AWS::CertificateManager::Certificate', {
      DomainName: 'staging.api.example.com',
      ValidationMethod: 'DNS',
      DomainValidationOptions: [{ DomainName: 'staging.api.example.com', HostedZoneId: ZONE.hostedZoneId }],
    });
    template.hasOutput(API_URL_OUTPUT, { Value: 'https://staging.api.example.com/v1/' });
  });

  test('passes cdk-nag like the default stacks', () => {
    expectNagClean(prod.stack);
    expectNagClean(staging.stack);
  });

  test('needs a certificate or a zone to issue one in', () => {
    expect(() => validateConfig({ ...STAGES.staging, customDomain: { domainName: 'api.example.com' } })).toThrow(
      /certificateArn/,
    );
  });
});

describe('an alarm topic', () => {
  test("cdk synth works without prod's, and the deploy command refuses the assembly it made", () => {
    const { assemblyDir, stages } = synthesiseStages();
    const prodAlarms = Object.keys(
      stages.find((s) => s.stage === 'prod')?.template.findResources('AWS::CloudWatch::Alarm') ?? {},
    ).length;
    expect(prodAlarms).toBeGreaterThan(10);
    expect(notificationProblem('prod', ['--app', assemblyDir], {}, path.sep)).toBe(
      `${prodAlarms} of the ${prodAlarms} alarms of ${stackNameFor('prod')} in ${assemblyDir} notify nobody: ` +
        `set ${alarmTopicVariable('prod')}=<SNS topic ARN> (in the pipeline, the repository variable ${alarmTopicVariable('prod')}) and synthesise again.`,
    );
    expect(notificationProblem('staging', ['--app', assemblyDir], {}, path.sep)).toBeUndefined();
  });

  test('receives alarm and OK notifications of every alarm', () => {
    const { template } = prod;
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    expect(alarms.length).toBeGreaterThanOrEqual(4);
    for (const alarm of alarms) {
      expect(alarm.Properties?.AlarmActions).toEqual([TOPIC_ARN]);
      expect(alarm.Properties?.OKActions).toEqual([TOPIC_ARN]);
    }
  });
});

describe('an alarm email address', () => {
  test('is subscribed to a TLS-only topic that every alarm notifies', () => {
    const { template, stack } = staging;
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: [Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })],
      },
    });
    const topic = stack.alarms.email?.topic;
    if (!topic) throw new Error('no email topic');
    for (const alarm of Object.values(template.findResources('AWS::CloudWatch::Alarm'))) {
      expect(alarm.Properties?.AlarmActions).toEqual([ref(topic)]);
    }
    expectNagClean(stack);
  });
});

describe('config validation', () => {
  test('refuses disposable prod data', () => {
    expect(() => validateConfig({ ...STAGES.prod, disposableData: true })).toThrow(/prod/);
  });

  test('refuses stage throttling stricter than a usage plan', () => {
    expect(() => validateConfig({ ...STAGES.staging, throttle: { rateLimit: 1, burstLimit: 1 } })).toThrow(/stricter/);
  });

  test.each([0, -1, 2.5, Number.NaN, 901])('refuses %p as the reserved concurrency of list-orders', (value) => {
    expect(() => validateConfig({ ...STAGES.staging, listOrdersReservedConcurrency: value })).toThrow(
      /listOrdersReservedConcurrency of staging must be a whole number from 1 to 900/,
    );
  });

  test('prod reserves more concurrency for listings than staging', () => {
    expect(STAGES.prod.listOrdersReservedConcurrency).toBeGreaterThan(STAGES.staging.listOrdersReservedConcurrency);
  });

  test.each([
    [{ percent: 0, minutes: 5 }, /percentage/],
    [{ percent: 100, minutes: 5 }, /percentage/],
    [{ percent: 12.5, minutes: 5 }, /percentage/],
    [{ percent: 10, minutes: 0 }, /minutes/],
    [{ percent: 10, minutes: 2.5 }, /minutes/],
    [{ percent: 10, minutes: ROLLBACK_ALARM_MINUTES }, /the rollback alarms need/],
  ])('refuses a canary of %j, which CodeDeploy cannot run', (canary, message) => {
    expect(() => validateConfig({ ...STAGES.prod, release: { type: 'canary', ...canary } })).toThrow(message);
  });

  test("every stage releases through a canary, staging's shorter than prod's", () => {
    for (const stage of STAGE_NAMES) expect(STAGES[stage].release.type).toBe('canary');
    expect(STAGES.staging.release.minutes).toBeLessThan(STAGES.prod.release.minutes);
  });

  test('accepts the real configs', () => {
    for (const stage of STAGE_NAMES) expect(() => validateConfig(STAGES[stage])).not.toThrow();
  });
});
