// What the app synthesises with `-c apiGatewayCloudWatchRole=keep`: an app of its own, synthesised
// in stack.test.ts's file, where aws-cdk-lib, cdk-nag and the template validation engine are
// already loaded for the shared synthesis (this app's resource types are a subset of its, so the
// engine is reused).
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import { ACCOUNT_STACK_NAME, STAGE_NAMES, stackNameFor } from '../../lib/contract/deployment';
import { CLOUDWATCH_ROLE_CONTEXT } from '../../infra/cloudwatch-role-mode';
import { STAGE_TAG } from '../../infra/pipeline/names';
import { addServiceStacks, EXECUTION_LOGGING_ROLE_TAG } from '../../infra/service-app';
import { logicalId, testApp } from './synth';

describe('with -c apiGatewayCloudWatchRole=keep', () => {
  let app: App;
  let stacks: ReturnType<typeof addServiceStacks>;
  beforeAll(() => {
    app = testApp({ context: { [CLOUDWATCH_ROLE_CONTEXT]: 'keep' } });
    stacks = addServiceStacks(app, {});
    app.synth();
  });

  test('no account stack is synthesised: nothing sets the account-wide role', () => {
    expect(stacks.account).toBeUndefined();
    const assembly = app.synth();
    expect(assembly.stacks.map((s) => s.stackName).sort()).toEqual(STAGE_NAMES.map(stackNameFor).sort());
    expect(assembly.stacks.map((s) => s.stackName)).not.toContain(ACCOUNT_STACK_NAME);
  });

  test.each(STAGE_NAMES)('the %s stack neither sets the role, nor depends on or reads the account stack', (stage) => {
    const stack = stacks.stages[stage];
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::ApiGateway::Account', 0);
    expect(stack.dependencies.map((d) => d.stackName)).not.toContain(ACCOUNT_STACK_NAME);
    expect(JSON.stringify(template.toJSON())).not.toContain('Fn::GetStackOutput');
    // Execution logging stays on, into the stack's own group, with the role the account has.
    // The definition the upgrade's `cdk import ... -c apiGatewayCloudWatchRole=keep` imports the
    // group with (docs/deployment.md): the same logical id, its name from the API, its retention,
    // and its stage's tag (infra/pipeline/names.ts), nothing read from another stack.
    const id = logicalId(stack.api.executionLogs);
    expect(id).toBe('ExecutionLogs6FEE23C8');
    const group = template.findResources('AWS::Logs::LogGroup')[id];
    expect(Object.keys(group?.Properties ?? {}).sort()).toEqual(['LogGroupName', 'RetentionInDays', 'Tags']);
    expect(group?.Properties?.Tags).toEqual([{ Key: STAGE_TAG, Value: stage }]);
    expect(group?.DependsOn).toBeUndefined();
    expect(group?.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    expect(JSON.stringify(template.toJSON())).not.toContain(EXECUTION_LOGGING_ROLE_TAG);
  });
});
