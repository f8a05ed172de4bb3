import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { CloudFormationClient, CreateStackCommand } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { CreateSecretCommand, PutSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import {
  alarmTopicVariable,
  CANARY_KEY_SECRET_OUTPUT,
  LIST_ORDERS_RESERVED_CONCURRENCY,
  stackNameFor,
  toolkitStackNameFor,
} from '../../lib/contract/deployment';
import { generateApiKey } from '../../lib/core/access/key-format';
import {
  LAMBDA_UNRESERVED_MINIMUM,
  lambdaAccountFacts,
  requiredUnreserved,
  type AccountFacts,
} from '../../tools/deploy/preflight';
import { createStackWithOutputs, describeWithMoto, MOTO_REGION, startMoto, type Moto } from '../support/moto';
import { cdkArguments, runDeployCommand } from '../../tools/deploy/run';
import { UsageError } from '../../tools/shared/errors';

const ROOT = path.join(__dirname, '..', '..');

describe('npm run deploy / npm run diff', () => {
  test("deploy takes the stage stack alone, through the stage's own bootstrap; never the account stack", () => {
    expect(cdkArguments('deploy', ['staging'])).toEqual([
      'deploy',
      stackNameFor('staging'),
      '--exclusively',
      '--toolkit-stack-name',
      toolkitStackNameFor('staging'),
      '--no-notices',
    ]);
  });

  test('diff shows the account stack and the stage stack, as a deploy would change them', () => {
    expect(cdkArguments('diff', ['prod'])).toEqual(['diff', 'StoreOrders-account', 'StoreOrders-prod', '--no-notices']);
  });

  test('what follows the stage goes to cdk unchanged', () => {
    expect(cdkArguments('deploy', ['prod', '--require-approval', 'never'])).toEqual([
      'deploy',
      'StoreOrders-prod',
      '--exclusively',
      '--toolkit-stack-name',
      toolkitStackNameFor('prod'),
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
  const PROD_TOPIC = { [alarmTopicVariable('prod')]: 'arn:aws:sns:eu-west-1:123456789012:store-orders-alarms' };

  function facts(overrides: Partial<AccountFacts> = {}): AccountFacts {
    return {
      region: () => Promise.resolve('eu-west-1'),
      unreservedConcurrency: () => Promise.resolve(1_000),
      reservedByStage: () => Promise.resolve(0),
      streamingAvailable: () => Promise.resolve(true),
      canaryKey: () => Promise.resolve('stored'),
      ...overrides,
    };
  }

  async function run(
    argv: string[],
    accountFacts: AccountFacts,
    env: Record<string, string | undefined> = PROD_TOPIC,
    cwd = ROOT,
  ) {
    const err: string[] = [];
    const cdkRuns: string[][] = [];
    const code = await runDeployCommand(argv, {
      facts: () => accountFacts,
      reservation: (stage) => LIST_ORDERS_RESERVED_CONCURRENCY[stage],
      cdk: (args) => {
        cdkRuns.push(args);
        return 0;
      },
      err: (line) => err.push(line),
      env,
      cwd,
    });
    return { code, err, cdkRuns };
  }

  test('an account with enough concurrency, in a streaming Region, goes on to cdk', async () => {
    expect(await run(['deploy', 'staging'], facts())).toEqual({
      code: 0,
      err: [],
      cdkRuns: [cdkArguments('deploy', ['staging'])],
    });
  });

  describe('concurrency: what the unreserved pool must hold for the stage', () => {
    const PROD = LIST_ORDERS_RESERVED_CONCURRENCY.prod;

    test('a first deploy takes its whole reservation from the unreserved pool, leaving the 100 Lambda keeps', async () => {
      const needed = PROD + LAMBDA_UNRESERVED_MINIMUM;
      const result = await run(['deploy', 'prod'], facts({ unreservedConcurrency: () => Promise.resolve(needed - 1) }));
      expect(result.code).toBe(1);
      expect(result.cdkRuns).toEqual([]);
      expect(result.err).toEqual([
        `Error: The account's unreserved Lambda concurrency in eu-west-1 is ${needed - 1}; prod reserves ${PROD} ` +
          `for list-orders (0 held by StoreOrders-prod already) and Lambda keeps ${LAMBDA_UNRESERVED_MINIMUM} unreserved, ` +
          `so at least ${needed} unreserved is needed: raise "Concurrent executions" in Service Quotas (Lambda), ` +
          'free concurrency other functions reserve, or lower listOrdersReservedConcurrency in infra/stages.ts.',
      ]);
      expect(
        (await run(['deploy', 'prod'], facts({ unreservedConcurrency: () => Promise.resolve(needed) }))).code,
      ).toBe(0);
    });

    test('a redeploy gets back what the stage reserves already', async () => {
      // Exactly the 100 left, the stage's 50 held: the deploy gives them back and takes them again.
      const redeploy = facts({
        unreservedConcurrency: () => Promise.resolve(LAMBDA_UNRESERVED_MINIMUM),
        reservedByStage: (stage) => Promise.resolve(stage === 'prod' ? PROD : 0),
      });
      expect(requiredUnreserved(PROD, PROD)).toBe(LAMBDA_UNRESERVED_MINIMUM);
      expect(await run(['deploy', 'prod'], redeploy)).toMatchObject({ code: 0, err: [] });
    });

    test("the quota is not what is free: other functions' reservations count", async () => {
      // The SDK's output as Lambda sends it (API_GetAccountSettings, Response Syntax): a quota of
      // 1,000 of which other functions reserve 900.
      const body = JSON.stringify({
        AccountLimit: {
          CodeSizeUnzipped: 262144000,
          CodeSizeZipped: 52428800,
          ConcurrentExecutions: 1000,
          TotalCodeSize: 80530636800,
          UnreservedConcurrentExecutions: 100,
        },
        AccountUsage: { FunctionCount: 12, TotalCodeSize: 1234567 },
      });
      const lambda = new LambdaClient({
        region: 'eu-west-1',
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
        requestHandler: {
          handle: () =>
            Promise.resolve({
              response: {
                statusCode: 200,
                headers: { 'content-type': 'application/json' },
                body: Readable.from([Buffer.from(body)]),
              },
            }),
        },
      });
      const cloudFormation = new CloudFormationClient({ region: 'eu-west-1' });
      try {
        const accountFacts = lambdaAccountFacts(lambda, cloudFormation);
        expect(await accountFacts.unreservedConcurrency()).toBe(100);
        const result = await run(['deploy', 'prod'], {
          ...facts(),
          unreservedConcurrency: accountFacts.unreservedConcurrency,
        });
        expect(result.code).toBe(1);
        expect(result.err[0]).toMatch(/^Error: The account's unreserved Lambda concurrency in eu-west-1 is 100;/);
      } finally {
        lambda.destroy();
        cloudFormation.destroy();
      }
    });
  });

  describe("the stage's release canary key, before a deploy", () => {
    test('a stage whose stack exists without it is refused in one line naming the command, before cdk', async () => {
      const asked: string[] = [];
      const missing = facts({
        canaryKey: (stage) => {
          asked.push(stage);
          return Promise.resolve('missing');
        },
      });
      expect(await run(['deploy', 'prod', '--require-approval', 'never'], missing)).toEqual({
        code: 1,
        cdkRuns: [],
        err: [
          "Error: StoreOrders-prod exists, and its release canary key secret holds no API key, so the authorizer's " +
            'release would fail its pre-traffic check: run npm run --silent admin -- --stage prod canary-key create, ' +
            'then deploy again.',
        ],
      });
      expect(asked).toEqual(['prod']);
    });

    // A first deploy creates each alias at version 1 directly: no traffic shifts, so no hook runs.
    test.each(['no stack', 'no secret', 'stored'] as const)('with %s, the deploy goes on to cdk', async (state) => {
      const result = await run(['deploy', 'staging'], facts({ canaryKey: () => Promise.resolve(state) }));
      expect(result).toMatchObject({ code: 0, err: [], cdkRuns: [cdkArguments('deploy', ['staging'])] });
    });

    test('a diff changes nothing, and its role may read no secret: it does not ask', async () => {
      const refusing = facts({ canaryKey: () => Promise.reject(new Error('a diff must not read the canary key')) });
      expect(await run(['diff', 'staging'], refusing)).toMatchObject({ code: 0, err: [] });
    });
  });

  test('a Region without response streaming: one line, no cdk', async () => {
    const result = await run(['diff', 'staging'], facts({ streamingAvailable: () => Promise.resolve(false) }));
    expect(result).toMatchObject({ code: 1, cdkRuns: [] });
    expect(result.err).toHaveLength(1);
    expect(result.err[0]).toMatch(/^Error: Lambda response streaming is not available in eu-west-1.*set AWS_REGION/);
  });

  describe("prod's alarm topic", () => {
    // Asked before AWS is: no account call is made for a command that cannot go ahead.
    const unreachable = facts({ region: () => Promise.reject(new Error('AWS was called')) });

    test.each(['deploy', 'diff'])(
      '%s of prod without one: one line naming the variable, no AWS call, no cdk',
      async (command) => {
        expect(await run([command, 'prod'], unreachable, {})).toEqual({
          code: 1,
          cdkRuns: [],
          err: [
            'Error: The alarms of prod must notify someone: set PROD_ALARM_TOPIC_ARN=<SNS topic ARN> ' +
              '(in the pipeline, the repository variable PROD_ALARM_TOPIC_ARN).',
          ],
        });
      },
    );

    test('one that is not a topic ARN is refused as such', async () => {
      const result = await run(['deploy', 'prod'], unreachable, { PROD_ALARM_TOPIC_ARN: 'oncall@example.com' });
      expect(result.err).toEqual([
        'Error: PROD_ALARM_TOPIC_ARN=oncall@example.com is not an SNS topic ARN: give arn:aws:sns:<region>:<account>:<topic name>.',
      ]);
    });

    test('staging needs none', async () => {
      expect(await run(['deploy', 'staging'], facts(), {})).toMatchObject({ code: 0, err: [] });
    });

    describe('deploying a cloud assembly synthesised before (--app)', () => {
      let dir: string;
      beforeEach(() => {
        dir = mkdtempSync(path.join(tmpdir(), 'assembly-'));
        writeFileSync(path.join(dir, 'manifest.json'), '{}');
      });
      afterEach(() => rmSync(dir, { recursive: true, force: true }));

      const alarm = (actions?: string[]) => ({
        Type: 'AWS::CloudWatch::Alarm',
        Properties: actions ? { AlarmActions: actions } : {},
      });
      const write = (resources: Record<string, unknown>) =>
        writeFileSync(path.join(dir, 'StoreOrders-prod.template.json'), JSON.stringify({ Resources: resources }));

      test('its prod alarms must carry an action, whatever the environment says now', async () => {
        write({ A: alarm(['arn:aws:sns:eu-west-1:123456789012:t']), B: alarm() });
        const result = await run(['deploy', 'prod', '--app', dir], unreachable, PROD_TOPIC);
        expect(result.err).toEqual([
          `Error: 1 of the 2 alarms of StoreOrders-prod in ${dir} notify nobody: set PROD_ALARM_TOPIC_ARN=<SNS topic ARN> ` +
            '(in the pipeline, the repository variable PROD_ALARM_TOPIC_ARN) and synthesise again.',
        ]);
        expect(result.code).toBe(1);
      });

      test('one whose every alarm notifies goes on, relative to the working directory too', async () => {
        write({ A: alarm(['arn:aws:sns:eu-west-1:123456789012:t']) });
        const result = await run(['deploy', 'prod', `--app=${path.basename(dir)}`], facts(), {}, path.dirname(dir));
        expect(result).toMatchObject({ code: 0, err: [] });
      });
    });

    test.each(['deploy', 'diff'])(
      'npm run %s -- prod without one, through the real command: one line, exit 1',
      (command) => {
        const tsx = path.join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
        const env = { ...process.env };
        delete env.PROD_ALARM_TOPIC_ARN;
        const result = spawnSync(process.execPath, [tsx, 'tools/deploy/cli.ts', command, 'prod'], {
          cwd: ROOT,
          encoding: 'utf8',
          env,
        });
        expect(result.stderr).toBe(
          'Error: The alarms of prod must notify someone: set PROD_ALARM_TOPIC_ARN=<SNS topic ARN> ' +
            '(in the pipeline, the repository variable PROD_ALARM_TOPIC_ARN).\n',
        );
        expect(result.stdout).toBe('');
        expect(result.status).toBe(1);
      },
    );
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
        const result = await run(
          ['diff', 'staging'],
          lambdaAccountFacts(lambda, new CloudFormationClient({ region: 'eu-west-1' })),
        );
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
        const result = await run(
          ['deploy', 'staging'],
          lambdaAccountFacts(lambda, new CloudFormationClient({ region: 'eu-west-1' })),
        );
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
      expect(
        await lambdaAccountFacts(lambda, new CloudFormationClient({ region: 'eu-west-1' })).streamingAvailable(),
      ).toBe(available);
    } finally {
      lambda.destroy();
    }
  });
});

describeWithMoto("what a stage's deployed functions reserve, read from its stack (moto_server)", () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(() => moto.stop());

  test("sums the reservations of the stage stack's functions; a stage never deployed holds none", async () => {
    const cloudFormation = moto.cloudFormation();
    const lambda = new LambdaClient({
      endpoint: moto.endpoint,
      region: MOTO_REGION,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
    const fn = (reserved?: number) => ({
      Type: 'AWS::Lambda::Function',
      Properties: {
        Runtime: 'nodejs22.x',
        Handler: 'index.handler',
        Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
        Code: { ZipFile: 'exports.handler = async () => 1' },
        ...(reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved }),
      },
    });
    const template = {
      Resources: {
        Role: {
          Type: 'AWS::IAM::Role',
          Properties: {
            AssumeRolePolicyDocument: {
              Version: '2012-10-17',
              Statement: [
                { Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' },
              ],
            },
          },
        },
        ListOrders: fn(LIST_ORDERS_RESERVED_CONCURRENCY.prod),
        Other: fn(),
      },
    };
    try {
      await cloudFormation.send(
        new CreateStackCommand({
          StackName: 'StoreOrders-prod',
          TemplateBody: JSON.stringify(template),
          Capabilities: ['CAPABILITY_IAM'],
        }),
      );
      const accountFacts = lambdaAccountFacts(lambda, cloudFormation);
      expect(await accountFacts.reservedByStage('prod')).toBe(LIST_ORDERS_RESERVED_CONCURRENCY.prod);
      expect(await accountFacts.reservedByStage('staging')).toBe(0);
    } finally {
      lambda.destroy();
      cloudFormation.destroy();
    }
  });
});

describeWithMoto("the stage's release canary key, read from its stack and secret (moto_server)", () => {
  let moto: Moto;
  beforeAll(async () => {
    moto = await startMoto();
  });
  afterAll(() => moto.stop());

  test('no stack, a stack without the secret, the placeholder, a stored key', async () => {
    const region = 'ap-southeast-2';
    const cloudFormation = moto.cloudFormation(region);
    const secretsManager = moto.secretsManager(region);
    const lambda = new LambdaClient({ region, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    try {
      const accountFacts = lambdaAccountFacts(lambda, cloudFormation, secretsManager);
      expect(await accountFacts.canaryKey('prod')).toBe('no stack');
      await createStackWithOutputs(cloudFormation, stackNameFor('staging'), {});
      expect(await accountFacts.canaryKey('staging')).toBe('no secret');

      // As the stack leaves it: a generated placeholder, no API key.
      const { ARN = '' } = await secretsManager.send(
        new CreateSecretCommand({ Name: 'canary', SecretString: 'Xy7#placeholder-from-the-stack' }),
      );
      await createStackWithOutputs(cloudFormation, stackNameFor('prod'), { [CANARY_KEY_SECRET_OUTPUT]: ARN });
      expect(await accountFacts.canaryKey('prod')).toBe('missing');
      await secretsManager.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: generateApiKey() }));
      expect(await accountFacts.canaryKey('prod')).toBe('stored');
    } finally {
      for (const client of [lambda, cloudFormation, secretsManager]) client.destroy();
    }
  });
});
