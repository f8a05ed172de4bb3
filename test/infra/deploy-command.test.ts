import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { LIST_ORDERS_RESERVED_CONCURRENCY, STAGE_NAMES } from '../../lib/contract/deployment';
import {
  LAMBDA_UNRESERVED_MINIMUM,
  lambdaAccountFacts,
  requiredConcurrency,
  type AccountFacts,
} from '../../tools/deploy/preflight';
import { cdkArguments, runDeployCommand } from '../../tools/deploy/run';
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

describe('the preflight, before cdk starts', () => {
  const RESERVATIONS = STAGE_NAMES.map((stage) => LIST_ORDERS_RESERVED_CONCURRENCY[stage]);
  const REQUIRED = requiredConcurrency(RESERVATIONS);

  function facts(overrides: Partial<AccountFacts> = {}): AccountFacts {
    return {
      region: () => Promise.resolve('eu-west-1'),
      concurrencyLimit: () => Promise.resolve(REQUIRED),
      streamingAvailable: () => Promise.resolve(true),
      ...overrides,
    };
  }

  async function run(argv: string[], accountFacts: AccountFacts) {
    const err: string[] = [];
    const cdkRuns: string[][] = [];
    const code = await runDeployCommand(argv, {
      facts: () => accountFacts,
      reservations: () => Promise.resolve(RESERVATIONS),
      cdk: (args) => {
        cdkRuns.push(args);
        return 0;
      },
      err: (line) => err.push(line),
    });
    return { code, err, cdkRuns };
  }

  test('an account with enough concurrency, in a streaming Region, goes on to cdk', async () => {
    expect(await run(['deploy', 'staging'], facts())).toEqual({
      code: 0,
      err: [],
      cdkRuns: [['deploy', 'StoreOrders-staging', '--no-notices']],
    });
  });

  test('too little concurrency for the reservations plus the unreserved 100: one line with the number needed', async () => {
    const result = await run(['deploy', 'prod'], facts({ concurrencyLimit: () => Promise.resolve(REQUIRED - 1) }));
    expect(result.code).toBe(1);
    expect(result.cdkRuns).toEqual([]);
    expect(result.err).toEqual([
      `Error: The account's Lambda concurrency in eu-west-1 is ${REQUIRED - 1}; the stages reserve ${RESERVATIONS.join(' + ')} ` +
        `for list-orders (${STAGE_NAMES.join(', ')}) and Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM} unreserved, so at least ${REQUIRED} is needed: ` +
        `request "Concurrent executions" of ${REQUIRED} or more in Service Quotas (Lambda), or lower listOrdersReservedConcurrency in infra/stages.ts.`,
    ]);
  });

  test('a Region without response streaming: one line, no cdk', async () => {
    const result = await run(['diff', 'staging'], facts({ streamingAvailable: () => Promise.resolve(false) }));
    expect(result).toMatchObject({ code: 1, cdkRuns: [] });
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^Error: Lambda response streaming is not available in eu-west-1.*set AWS_REGION/);
  });

  describe('with the AWS SDK itself and no credentials anywhere', () => {
    const CLEARED = [
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_SESSION_TOKEN',
      'AWS_PROFILE',
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'AWS_ROLE_ARN',
      'AWS_CONTAINER_CREDENTIALS_RELATIVE_URI',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
    ];
    const saved = { ...process.env };
    beforeAll(() => {
      for (const name of CLEARED) delete process.env[name];
      // No config files, no instance metadata: the SDK's default chain finds nothing, as on a laptop without a login.
      process.env.AWS_CONFIG_FILE = path.join(ROOT, 'no-such-aws-config');
      process.env.AWS_SHARED_CREDENTIALS_FILE = path.join(ROOT, 'no-such-aws-credentials');
      process.env.AWS_EC2_METADATA_DISABLED = 'true';
    });
    afterAll(() => {
      process.env = saved;
    });

    test('npm run diff -- staging prints one line and exits non-zero, before cdk', async () => {
      const lambda = new LambdaClient({ region: 'eu-west-1' });
      try {
        const result = await run(['diff', 'staging'], lambdaAccountFacts(lambda));
        expect(result.cdkRuns).toEqual([]);
        expect(result.code).toBe(1);
        expect(result.err).toHaveLength(1);
        expect(result.err[0]).toMatch(/^Error: No AWS credentials found \(.+\)\. Configure them, e\.g\. AWS_PROFILE/);
        expect(result.err[0]).not.toContain('\n');
      } finally {
        lambda.destroy();
      }
    });

    test('no region either: one line naming AWS_REGION', async () => {
      delete process.env.AWS_REGION;
      delete process.env.AWS_DEFAULT_REGION;
      const lambda = new LambdaClient({});
      try {
        const result = await run(['deploy', 'staging'], lambdaAccountFacts(lambda));
        expect(result).toEqual({
          code: 1,
          cdkRuns: [],
          err: ['Error: No AWS region is set: set AWS_REGION (or a region in your AWS profile).'],
        });
      } finally {
        lambda.destroy();
      }
    });
  });

  test.each([
    ['ResourceNotFoundException', true],
    ['UnknownOperationException', false],
  ])('the streaming probe reads %s as available: %s', async (name, available) => {
    const lambda = new LambdaClient({ region: 'eu-west-1', credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    // The answer Lambda gives, put where the SDK would raise it: no request leaves the process.
    lambda.middlewareStack.add(() => () => Promise.reject(Object.assign(new Error(name), { name })), {
      step: 'finalizeRequest',
    });
    try {
      expect(await lambdaAccountFacts(lambda).streamingAvailable()).toBe(available);
    } finally {
      lambda.destroy();
    }
  });
});
