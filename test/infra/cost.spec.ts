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
  });
});
