// The context flag that leaves an account's API Gateway CloudWatch role alone
// (`-c apiGatewayCloudWatchRole=keep`): how the app reads it. What the app synthesises with it is
// checked in account-role-keep.spec.ts, which runs beside the shared synthesis (stack.test.ts).
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib/core';
import { CLOUDWATCH_ROLE_CONTEXT, cloudWatchRoleMode } from '../../infra/cloudwatch-role-mode';
import { REPO_ROOT } from '../../infra/functions';

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

test.each([
  [
    { CDK_CONTEXT_JSON: JSON.stringify({ permissionsBoundary: 'off' }) },
    '-c permissionsBoundary=off is not a mode: use -c permissionsBoundary=pipeline or -c permissionsBoundary=none.',
  ],
  [
    { PROD_ALARM_TOPIC_ARN: 'oncall@example.com' },
    'PROD_ALARM_TOPIC_ARN=oncall@example.com is not an SNS topic ARN: give arn:aws:sns:<region>:<account>:<topic name>.',
  ],
])('the CDK app refuses the permissions-boundary flag or an alarm topic given wrong, in one line (%j)', (env, line) => {
  const result = spawnSync(path.join(REPO_ROOT, 'node_modules', '.bin', 'tsx'), ['infra/app.ts'], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(result.stderr).toBe(`${line}\n`);
  expect(result.status).toBe(2);
});
