// The context flag that leaves an account's API Gateway CloudWatch role alone
// (`-c apiGatewayCloudWatchRole=keep`): its own synthesis, so its own file.
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CLOUDWATCH_ROLE_CONTEXT, cloudWatchRoleMode } from '../../infra/account-stack';
import { REPO_ROOT } from '../../infra/functions';
import { ACCOUNT_STACK_NAME, STAGE_NAMES, stackNameFor } from '../../lib/contract/deployment';
import { addServiceStacks, EXECUTION_LOGGING_ROLE_TAG } from '../../infra/service-app';
import { logicalId, testApp } from './synth';

describe('with -c apiGatewayCloudWatchRole=keep', () => {
  let app: App;
  let stacks: ReturnType<typeof addServiceStacks>;
  beforeAll(() => {
    app = testApp({ context: { [CLOUDWATCH_ROLE_CONTEXT]: 'keep' } });
    stacks = addServiceStacks(app);
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
    // group with (docs/deployment.md): the same logical id, its name from the API and its retention only.
    const id = logicalId(stack.api.executionLogs);
    expect(id).toBe('ExecutionLogs6FEE23C8');
    const group = template.findResources('AWS::Logs::LogGroup')[id];
    expect(Object.keys(group?.Properties ?? {}).sort()).toEqual(['LogGroupName', 'RetentionInDays']);
    expect(group?.DependsOn).toBeUndefined();
    expect(group?.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    expect(JSON.stringify(template.toJSON())).not.toContain(EXECUTION_LOGGING_ROLE_TAG);
  });
});

describe('the flag', () => {
  test('defaults to create, the account stack owning the role', () => {
    expect(cloudWatchRoleMode(new App())).toBe('create');
    expect(cloudWatchRoleMode(new App({ context: { [CLOUDWATCH_ROLE_CONTEXT]: 'create' } }))).toBe('create');
  });

  test('refuses anything else with the two spellings it takes', () => {
    expect(() => cloudWatchRoleMode(new App({ context: { [CLOUDWATCH_ROLE_CONTEXT]: 'yes' } }))).toThrow(
      '-c apiGatewayCloudWatchRole=yes is not a mode: use -c apiGatewayCloudWatchRole=create or -c apiGatewayCloudWatchRole=keep.',
    );
  });
});

test('the CDK app given a wrong value prints one line with the fix and exits 2', () => {
  // `cdk synth -c apiGatewayCloudWatchRole=yes` runs the app with the context in CDK_CONTEXT_JSON.
  const result = spawnSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['infra/app.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', CDK_CONTEXT_JSON: JSON.stringify({ [CLOUDWATCH_ROLE_CONTEXT]: 'yes' }) },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(result.status).toBe(2);
  expect(result.stderr).toBe(
    '-c apiGatewayCloudWatchRole=yes is not a mode: use -c apiGatewayCloudWatchRole=create or -c apiGatewayCloudWatchRole=keep.\n',
  );
});
