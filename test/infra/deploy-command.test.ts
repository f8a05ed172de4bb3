import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { cdkArguments } from '../../tools/deploy/args';
import { UsageError } from '../../tools/shared/errors';

const ROOT = path.join(__dirname, '..', '..');

describe('npm run deploy / npm run diff', () => {
  test('deploy takes the stage stack; cdk deploys the account stack it depends on first', () => {
    expect(cdkArguments('deploy', ['staging'])).toEqual(['deploy', 'StoreOrders-staging', '--no-notices']);
  });

  test('diff shows the account stack and the stage stack, as a deploy would change them', () => {
    expect(cdkArguments('diff', ['prod'])).toEqual(['diff', 'StoreOrders-account', 'StoreOrders-prod', '--no-notices']);
  });

  test('what follows the stage goes to cdk unchanged', () => {
    expect(cdkArguments('deploy', ['prod', '--require-approval', 'never'])).toEqual([
      'deploy',
      'StoreOrders-prod',
      '--no-notices',
      '--require-approval',
      'never',
    ]);
  });

  test.each([
    [[], /no stage given: Usage: npm run deploy -- staging\|prod/],
    [['production'], /unknown stage "production": Usage: npm run deploy -- staging\|prod/],
    [['--require-approval', 'never'], /unknown stage "--require-approval"/],
  ])('refuses %j with the usage', (argv, message) => {
    expect(() => cdkArguments('deploy', argv)).toThrow(UsageError);
    expect(() => cdkArguments('deploy', argv)).toThrow(message);
  });

  test('a wrong stage is one line on stderr and exit 2, before cdk is started', () => {
    const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const result = spawnSync(process.execPath, [tsx, 'tools/deploy/cli.ts', 'diff', 'qa'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(result.stderr).toBe('Error: unknown stage "qa": Usage: npm run diff -- staging|prod [cdk diff options]\n');
    expect(result.stdout).toBe('');
    expect(result.status).toBe(2);
  });
});
