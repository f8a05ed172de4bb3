import { STAGE_STANDING } from '../../infra/listing-cost';
import { synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('standing charges of %s', (stageName) => {
  test("the cost model counts the stage's billed-by-the-month resources as the stack creates them", () => {
    const stage = synthesised.stages.find((s) => s.stage === stageName);
    if (!stage) throw new Error(`no ${stageName} stage`);
    stage.template.resourceCountIs('AWS::CloudWatch::Alarm', STAGE_STANDING.alarms);
    stage.template.resourceCountIs('AWS::CloudWatch::Dashboard', STAGE_STANDING.dashboards);
    stage.template.resourceCountIs('AWS::SecretsManager::Secret', STAGE_STANDING.secrets);
    stage.template.resourceCountIs('AWS::WAFv2::WebACL', STAGE_STANDING.webAcls);
    // WAF bills each rule of a web ACL by the month.
    const rules = Object.values(stage.template.findResources('AWS::WAFv2::WebACL')).flatMap(
      (acl) => (acl.Properties as { Rules?: unknown[] }).Rules ?? [],
    );
    expect(rules).toHaveLength(STAGE_STANDING.wafRules);
  });

  // CloudWatch bills an alarm by the metrics it reads: one, or each metric of its math expression.
  test('the cost model counts the metrics the alarms read, as the stack declares them', () => {
    const stage = synthesised.stages.find((s) => s.stage === stageName);
    if (!stage) throw new Error(`no ${stageName} stage`);
    const metrics = Object.values(stage.template.findResources('AWS::CloudWatch::Alarm')).map((alarm) => {
      const queries = (alarm.Properties as { Metrics?: { MetricStat?: unknown }[] }).Metrics;
      return queries ? queries.filter((q) => q.MetricStat).length : 1;
    });
    expect(metrics.reduce((a, b) => a + b, 0)).toBe(STAGE_STANDING.alarmMetrics);
  });
});
