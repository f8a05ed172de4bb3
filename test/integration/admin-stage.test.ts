import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanKeyCommand,
  UpdateApiKeyCommand,
} from '@aws-sdk/client-api-gateway';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { hashApiKey } from '../../lib/core/key-format';
import { authenticate } from '../../lib/stores/key-service';
import { ApiKeysRepository } from '../../lib/stores/api-keys';
import { createDynamoClient } from '../../lib/stores/dynamo';
import { OrdersRepository } from '../../lib/stores/orders';
import { PLAN_LIMITS, PLAN_NAMES, type PlanName } from '../../lib/contract/plans';
import { RateLimiter } from '../../lib/stores/rate-limiter';
import { stageTarget } from '../../tools/admin/stage';
import { TABLE_NAME_OUTPUTS, USAGE_PLAN_ID_OUTPUTS } from '../../lib/contract/deployment';
import { adminRunner, testTarget, type Admin } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);
const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };

let tables: TestTables;
let keys: ApiKeysRepository;
let admin: Admin;
let openedStages: string[];

const planId = (plan: PlanName) => `plan-${plan}`;

/** Stack outputs as the CDK stack declares them, naming the test tables. */
function stackOutputs(tableNames: TestTables['names']) {
  return [
    { OutputKey: TABLE_NAME_OUTPUTS.orders, OutputValue: tableNames.orders },
    { OutputKey: TABLE_NAME_OUTPUTS.pets, OutputValue: tableNames.pets },
    { OutputKey: TABLE_NAME_OUTPUTS.apiKeys, OutputValue: tableNames.apiKeys },
    { OutputKey: TABLE_NAME_OUTPUTS.rateLimits, OutputValue: tableNames.rateLimits },
    ...PLAN_NAMES.map((plan) => ({ OutputKey: USAGE_PLAN_ID_OUTPUTS[plan], OutputValue: planId(plan) })),
  ];
}

/** The admin command, whose --stage opens the test tables (CloudFormation and API Gateway mocked); `now` its clock. */
function stageAdmin(now?: () => Date): Admin {
  return adminRunner(
    () => {
      throw new Error('--stage must not touch the local stack');
    },
    {
      stage: (name) => {
        openedStages.push(name);
        return stageTarget(name, {
          cloudFormation: new CloudFormationClient({ region: 'eu-west-1', credentials }),
          apiGateway: new APIGatewayClient({ region: 'eu-west-1', credentials }),
          dynamo: createDynamoClient({ endpoint: tables.endpoint }),
        });
      },
      ...(now ? { now } : {}),
    },
  );
}

beforeAll(async () => {
  tables = await createTestTables();
  keys = new ApiKeysRepository(tables.doc, tables.names.apiKeys);
  admin = stageAdmin();
});
afterAll(() => tables.drop());

let nextGatewayKey = 0;
beforeEach(() => {
  openedStages = [];
  cloudFormation.reset();
  apiGateway.reset();
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      { StackName: 'x', CreationTime: new Date(), StackStatus: 'UPDATE_COMPLETE', Outputs: stackOutputs(tables.names) },
    ],
  });
  apiGateway.on(CreateApiKeyCommand).callsFake(() => Promise.resolve({ id: `gw-${++nextGatewayKey}` }));
  apiGateway.on(CreateUsagePlanKeyCommand).resolves({});
  apiGateway.on(UpdateApiKeyCommand).resolves({});
  apiGateway.on(DeleteApiKeyCommand).resolves({});
  apiGateway.on(DeleteUsagePlanKeyCommand).resolves({});
});

const inputs = <T>(calls: { args: [{ input: T }] }[]): T[] => calls.map((call) => call.args[0].input);

async function createOnStage(...options: string[]): Promise<{ key: string; id: string; gatewayKeyId?: string }> {
  const run = await admin('--stage', 'staging', 'keys', 'create', ...options, '--json');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(run.stdout) as { key: string; id: string; gatewayKeyId?: string };
}

test.each(PLAN_NAMES)(
  'keys create --plan %s: stored in the stage table, API key = hash, in the tier usage plan',
  async (plan) => {
    const limits = plan === 'enterprise' ? ['--rpm', '100', '--rpd', '1000'] : [];
    const created = await createOnStage('--plan', plan, '--name', 'partner', ...limits);

    expect(inputs(cloudFormation.commandCalls(DescribeStacksCommand))).toEqual([{ StackName: 'StoreOrders-staging' }]);
    const [apiKey, ...moreKeys] = inputs(apiGateway.commandCalls(CreateApiKeyCommand));
    expect(moreKeys).toEqual([]);
    expect(apiKey).toEqual({
      name: created.id,
      value: hashApiKey(created.key),
      enabled: true,
      description: `Store Orders API ${plan} key`,
    });
    const gatewayKeyId = `gw-${nextGatewayKey}`;
    expect(inputs(apiGateway.commandCalls(CreateUsagePlanKeyCommand))).toEqual([
      { usagePlanId: planId(plan), keyId: gatewayKeyId, keyType: 'API_KEY' },
    ]);
    expect(created.gatewayKeyId).toBe(gatewayKeyId);
    expect(await keys.get(created.id)).toMatchObject({ plan, gatewayKeyId, hash: hashApiKey(created.key) });
    expect(await authenticate(keys, created.key)).toMatchObject({ usageIdentifier: hashApiKey(created.key) });
  },
);

test('keys revoke --stage revokes the record and deletes its API Gateway key and usage-plan binding', async () => {
  const created = await createOnStage('--plan', 'pro');
  apiGateway.resetHistory();

  const run = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain(`API Gateway key ${created.gatewayKeyId} is deleted, with its usage-plan binding`);
  expect(inputs(apiGateway.commandCalls(DeleteUsagePlanKeyCommand))).toEqual([
    { usagePlanId: planId('pro'), keyId: created.gatewayKeyId },
  ]);
  expect(inputs(apiGateway.commandCalls(DeleteApiKeyCommand))).toEqual([{ apiKey: created.gatewayKeyId }]);
  // Deleted, not merely disabled: a disabled key still counts against the account's quota.
  expect(apiGateway.commandCalls(UpdateApiKeyCommand)).toHaveLength(0);
  expect(await authenticate(keys, created.key)).toBeUndefined();
  expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();

  // Again: nothing is left to delete.
  const again = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('already revoked');
  expect(apiGateway.commandCalls(DeleteApiKeyCommand)).toHaveLength(1);
});

test('revoking a key revoked earlier (its gateway key only disabled) deletes that gateway key', async () => {
  const created = await createOnStage('--plan', 'free');
  await keys.revoke(created.id, new Date('2026-01-01T00:00:00Z'));
  apiGateway.resetHistory();
  // Already gone at the gateway (deleted by hand): still done, and forgotten.
  apiGateway
    .on(DeleteApiKeyCommand)
    .rejects(Object.assign(new Error('Invalid API Key identifier'), { name: 'NotFoundException' }));

  const run = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toBe(
    `${created.id} was already revoked at 2026-01-01T00:00:00.000Z. Its API Gateway key ${created.gatewayKeyId} is deleted, with its usage-plan binding.`,
  );
  expect(inputs(apiGateway.commandCalls(DeleteApiKeyCommand))).toEqual([{ apiKey: created.gatewayKeyId }]);
  expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();
});

test('a gateway deletion that fails leaves the gateway key recorded, so revoking again finishes it', async () => {
  const created = await createOnStage('--plan', 'business');
  apiGateway
    .on(DeleteApiKeyCommand)
    .rejects(Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' }));
  const run = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
  expect(run.code).toBe(1);
  expect(await authenticate(keys, created.key)).toBeUndefined();
  expect((await keys.get(created.id))?.gatewayKeyId).toBe(created.gatewayKeyId);

  apiGateway.on(DeleteApiKeyCommand).resolves({});
  expect((await admin('--stage', 'staging', 'keys', 'revoke', created.id)).code).toBe(0);
  expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();
});

test('keys prune-gateway deletes the gateway keys revoked keys still have, and only those', async () => {
  const live = await createOnStage('--plan', 'free');
  const old = [
    await createOnStage('--plan', 'pro'),
    await createOnStage('--plan', 'enterprise', '--rpm', '5', '--rpd', '5'),
  ];
  for (const { id } of old) await keys.revoke(id, new Date('2026-01-01T00:00:00Z'));
  apiGateway.resetHistory();
  const leftBefore = (await keys.list()).filter((r) => r.revokedAt !== undefined && r.gatewayKeyId !== undefined);

  const run = await admin('--stage', 'staging', 'keys', 'prune-gateway');
  expect(run).toMatchObject({ code: 0, stderr: '' });
  expect(run.stdout).toContain(`Deleted the API Gateway keys of ${leftBefore.length} revoked keys`);
  const deleted = inputs(apiGateway.commandCalls(DeleteApiKeyCommand)).map((input) => input.apiKey);
  expect(deleted.sort()).toEqual(leftBefore.map((r) => r.gatewayKeyId).sort());
  for (const { gatewayKeyId } of old) expect(deleted).toContain(gatewayKeyId);
  expect(deleted).not.toContain(live.gatewayKeyId);
  expect((await keys.get(live.id))?.gatewayKeyId).toBe(live.gatewayKeyId);
  expect((await keys.list()).filter((r) => r.revokedAt !== undefined && r.gatewayKeyId !== undefined)).toEqual([]);

  const again = await admin('--stage', 'staging', 'keys', 'prune-gateway');
  expect(again.stdout).toContain('No revoked key');
});

test('keys prune-gateway on the local stack is a usage error', async () => {
  const local = adminRunner(() => testTarget(tables));
  const run = await local('keys', 'prune-gateway');
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('keys prune-gateway needs --stage');
});

test('a failed usage-plan attach removes the API key, revokes the record and never shows the key', async () => {
  apiGateway
    .on(CreateUsagePlanKeyCommand)
    .rejects(Object.assign(new Error('Usage plan not found'), { name: 'NotFoundException' }));
  const before = (await keys.list()).length;

  const run = await admin('--stage', 'staging', 'keys', 'create', '--plan', 'business', '--json');
  expect(run).toMatchObject({ code: 1, stdout: '' });
  expect(run.stderr).toContain('Usage plan not found');
  expect(run.stderr).toContain('not shown');
  expect(run.stderr).not.toMatch(/sok_/);
  const gatewayKeyId = `gw-${nextGatewayKey}`;
  expect(inputs(apiGateway.commandCalls(DeleteApiKeyCommand))).toEqual([{ apiKey: gatewayKeyId }]);
  const records = await keys.list();
  expect(records).toHaveLength(before + 1);
  expect(records.filter((r) => r.plan === 'business' && !r.revokedAt && !r.gatewayKeyId)).toEqual([]);
});

test('keys list --stage prod reads the prod stack and shows the gateway key ids', async () => {
  const created = await createOnStage('--plan', 'free');
  cloudFormation.resetHistory();
  const run = await admin('keys', 'list', '--stage', 'prod');
  expect(run.code).toBe(0);
  expect(openedStages).toContain('prod');
  expect(inputs(cloudFormation.commandCalls(DescribeStacksCommand))).toEqual([{ StackName: 'StoreOrders-prod' }]);
  expect(run.stdout.split('\n')[0]).toContain('GATEWAY KEY');
  expect(run.stdout).toContain(created.gatewayKeyId);
  expect(run.stdout).not.toContain(created.key);
});

test("keys usage --stage reads the stage's rate-limit table", async () => {
  const created = await createOnStage('--plan', 'free');
  // One fixed clock for the request and the reading: with the real one, a request just before
  // 00:00 UTC was read the next day, with nothing used.
  const now = Date.parse('2026-11-22T23:59:59.999Z');
  await new RateLimiter(tables.doc, tables.names.rateLimits, () => now).admit(created.id, PLAN_LIMITS.free);
  const run = await stageAdmin(() => new Date(now))('--stage', 'staging', 'keys', 'usage', created.id, '--json');
  expect(run.code).toBe(0);
  expect(openedStages).toEqual(['staging', 'staging']);
  expect(JSON.parse(run.stdout)).toMatchObject({
    id: created.id,
    plan: 'free',
    day: { used: 1, remaining: PLAN_LIMITS.free.perDay - 1 },
  });
});

test('orders ship --stage works on the stage orders table', async () => {
  const orders = new OrdersRepository(tables.doc, tables.names.orders);
  await orders.create({ id: '9007199254740993', status: 'pending' });
  const run = await admin('--stage', 'staging', 'orders', 'ship', '9007199254740993');
  expect(run.code).toBe(0);
  expect((await orders.get('9007199254740993'))?.status).toBe('shipped');
  expect(apiGateway.calls()).toHaveLength(0);
});

test('a stage whose stack does not exist is a clear failure, with nothing written', async () => {
  cloudFormation
    .on(DescribeStacksCommand)
    .rejects(Object.assign(new Error('Stack with id StoreOrders-staging does not exist'), { name: 'ValidationError' }));
  const before = (await keys.list()).length;
  const run = await admin('--stage', 'staging', 'keys', 'create', '--plan', 'free');
  expect(run).toMatchObject({ code: 1, stdout: '' });
  expect(run.stderr).toContain('Stack StoreOrders-staging does not exist in eu-west-1');
  expect(run.stderr).toContain('npx cdk deploy StoreOrders-staging');
  expect(apiGateway.calls()).toHaveLength(0);
  expect(await keys.list()).toHaveLength(before);
});

test('a stack without the expected outputs is refused before anything is written', async () => {
  cloudFormation.on(DescribeStacksCommand).resolves({
    Stacks: [
      {
        StackName: 'x',
        CreationTime: new Date(),
        StackStatus: 'UPDATE_COMPLETE',
        Outputs: stackOutputs(tables.names).filter((o) => o.OutputKey !== USAGE_PLAN_ID_OUTPUTS.pro),
      },
    ],
  });
  const before = (await keys.list()).length;
  const run = await admin('--stage', 'staging', 'keys', 'create', '--plan', 'free');
  expect(run.code).toBe(1);
  expect(run.stderr).toContain(`has no output ${USAGE_PLAN_ID_OUTPUTS.pro}`);
  expect(await keys.list()).toHaveLength(before);
});

test('missing AWS credentials are a clear failure', async () => {
  cloudFormation
    .on(DescribeStacksCommand)
    .rejects(
      Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
    );
  const run = await admin('--stage', 'prod', 'keys', 'list');
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('No AWS credentials found');
  expect(run.stderr).not.toMatch(/\n\s+at /);
});

test('no AWS region is one line naming AWS_REGION, exit 2', async () => {
  cloudFormation.on(DescribeStacksCommand).rejects(new Error('Region is missing'));
  const run = await admin('--stage', 'prod', 'keys', 'list');
  expect(run).toMatchObject({
    code: 2,
    stdout: '',
    stderr: 'Error: No AWS region is set: set AWS_REGION, or a region in your AWS profile, for --stage',
  });
});
