// The admin command's --stage against a stage as AWS would answer: CloudFormation and API Gateway
// are moto_server (test/support/moto.ts), the tables the embedded DynamoDB. Faults moto cannot
// produce (throttling, a usage plan gone mid-run, no credentials or region) are injected into the
// one call they concern, through the SDK's middleware.
import {
  CreateRestApiCommand,
  DeleteApiKeyCommand,
  GetApiKeyCommand,
  GetApiKeysCommand,
  GetUsagePlanKeysCommand,
  GetUsagePlansCommand,
  UpdateUsagePlanCommand,
  type APIGatewayClient,
} from '@aws-sdk/client-api-gateway';
import { hashApiKey } from '../../lib/core/access/key-format';
import { authenticate } from '../../lib/stores/key-service';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { PLAN_LIMITS, PLAN_NAMES, type PlanName } from '../../lib/contract/plans';
import type { TableId } from '../../lib/contract/tables';
import { DeleteStackCommand } from '@aws-sdk/client-cloudformation';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { stageTarget, type StageClients } from '../../tools/admin/stage';
import {
  STAGE_NAMES,
  stackNameFor,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
  type StageName,
} from '../../lib/contract/deployment';
import { adminRunner, testTarget, type Admin } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';
import {
  createStackWithOutputs,
  createUsagePlans,
  describeWithMoto,
  failNext,
  startMoto,
  type Moto,
} from '../support/moto';

describeWithMoto('admin --stage against moto_server', () => {
  /** Regions of moto with no stage stack, and with one that lacks an output. */
  const EMPTY_REGION = 'us-east-2';
  const OUTDATED_REGION = 'eu-central-1';

  let moto: Moto;
  let gateway: APIGatewayClient;
  let tables: TestTables;
  let keys: ApiKeysRepository;
  let admin: Admin;
  let openedStages: string[];
  let planIds: Record<StageName, Record<PlanName, string>>;

  /** Stack outputs as the CDK stack declares them, naming the test tables and the stage's usage plans. */
  function stackOutputs(plans: Record<PlanName, string>, without?: string): Record<string, string> {
    // Every table the stack names, as declared: a table added to the contract is named here too.
    const outputs: Record<string, string> = {
      ...Object.fromEntries(Object.entries(TABLE_NAME_OUTPUTS).map(([id, key]) => [key, tables.names[id as TableId]])),
      ...Object.fromEntries(PLAN_NAMES.map((plan) => [USAGE_PLAN_ID_OUTPUTS[plan], plans[plan]])),
    };
    if (without !== undefined) delete outputs[without];
    return outputs;
  }

  interface StageAdminOptions {
    now?: () => Date;
    region?: string;
    /** Sees the clients of each run before it starts, e.g. to inject a fault. */
    configure?: (clients: StageClients) => void;
  }

  /** The admin command, whose --stage reaches moto and the test tables. */
  function stageAdmin(options: StageAdminOptions = {}): Admin {
    return adminRunner(
      () => {
        throw new Error('--stage must not touch the local stack');
      },
      {
        stage: (name) => {
          openedStages.push(name);
          const clients = {
            cloudFormation: moto.cloudFormation(options.region),
            apiGateway: moto.apiGateway(options.region),
            dynamo: { endpoint: tables.endpoint },
          };
          options.configure?.(clients);
          return stageTarget(name, clients);
        },
        ...(options.now ? { now: options.now } : {}),
      },
    );
  }

  beforeAll(async () => {
    [moto, tables] = await Promise.all([startMoto(), createTestTables()]);
    gateway = moto.apiGateway();
    const cloudFormation = moto.cloudFormation();
    const outdated = {
      cloudFormation: moto.cloudFormation(OUTDATED_REGION),
      apiGateway: moto.apiGateway(OUTDATED_REGION),
    };
    keys = tables.stores().keys;
    admin = stageAdmin();
    planIds = {} as Record<StageName, Record<PlanName, string>>;
    for (const stage of STAGE_NAMES) {
      planIds[stage] = await createUsagePlans(gateway, PLAN_NAMES, stage);
      await createStackWithOutputs(cloudFormation, stackNameFor(stage), stackOutputs(planIds[stage]));
    }
    const outdatedPlans = await createUsagePlans(outdated.apiGateway, PLAN_NAMES, 'outdated');
    await createStackWithOutputs(
      outdated.cloudFormation,
      stackNameFor('staging'),
      stackOutputs(outdatedPlans, USAGE_PLAN_ID_OUTPUTS.pro),
    );
    for (const client of [cloudFormation, outdated.cloudFormation, outdated.apiGateway]) client.destroy();
  });
  afterAll(async () => {
    gateway.destroy();
    await Promise.all([tables.drop(), moto.stop()]);
  });
  beforeEach(() => {
    openedStages = [];
  });

  /** The gateway API key with this id, value included, or undefined when there is none. */
  async function gatewayKey(id: string | undefined) {
    if (id === undefined) return undefined;
    try {
      return await gateway.send(new GetApiKeyCommand({ apiKey: id, includeValue: true }));
    } catch (error) {
      if ((error as { name?: unknown }).name === 'NotFoundException') return undefined;
      throw error;
    }
  }

  async function planKeyIds(usagePlanId: string): Promise<string[]> {
    const { items } = await gateway.send(new GetUsagePlanKeysCommand({ usagePlanId }));
    return (items ?? []).map((k) => k.id ?? '');
  }

  async function gatewayKeyCount(): Promise<number> {
    return ((await gateway.send(new GetApiKeysCommand({}))).items ?? []).length;
  }

  async function createOnStage(...options: string[]): Promise<{ key: string; id: string; gatewayKeyId?: string }> {
    const run = await admin('--stage', 'staging', 'keys', 'create', ...options, '--json');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as { key: string; id: string; gatewayKeyId?: string };
  }

  const bindingGone = () =>
    Object.assign(new Error('Invalid Usage Plan Key identifier specified'), { name: 'NotFoundException' });
  const throttled = () => Object.assign(new Error('Rate exceeded'), { name: 'TooManyRequestsException' });

  test.each(PLAN_NAMES)(
    'keys create --plan %s: stored in the stage table, API key = hash, in the tier usage plan',
    async (plan) => {
      const limits = plan === 'enterprise' ? ['--rpm', '100', '--rpd', '1000'] : [];
      const created = await createOnStage('--plan', plan, '--name', 'partner', ...limits);

      expect(openedStages).toEqual(['staging']);
      const apiKey = await gatewayKey(created.gatewayKeyId);
      expect(apiKey).toMatchObject({
        id: created.gatewayKeyId,
        name: created.id,
        value: hashApiKey(created.key),
        enabled: true,
        description: `Store Orders API ${plan} key`,
      });
      expect(await planKeyIds(planIds.staging[plan])).toContain(created.gatewayKeyId);
      for (const other of PLAN_NAMES.filter((p) => p !== plan)) {
        expect(await planKeyIds(planIds.staging[other])).not.toContain(created.gatewayKeyId);
      }
      expect(await keys.get(created.id)).toMatchObject({
        plan,
        gatewayKeyId: created.gatewayKeyId,
        hash: hashApiKey(created.key),
      });
      expect(await authenticate(keys, created.key)).toMatchObject({ usageIdentifier: hashApiKey(created.key) });
    },
  );

  test('a key made with --stage works on v1 and v2: its one usage-plan binding reaches both API stages of the plan', async () => {
    // The stack puts v1's stage and v2's (each its own RestApi) in every usage plan
    // (test/infra/v2.spec.ts); here the business plan is given both, as deployed. API Gateway admits a
    // key to every API stage of the plan it is bound to, under the plan's one quota: the admin
    // command needs no step per API, and binds the key once.
    const stages = await Promise.all(
      [BASE_PATH, V2_BASE_PATH].map(async (basePath) => {
        const { id } = await gateway.send(new CreateRestApiCommand({ name: `store-orders-staging${basePath}` }));
        return `${id}:${basePath.slice(1)}`;
      }),
    );
    const plan = planIds.staging.business;
    await gateway.send(
      new UpdateUsagePlanCommand({
        usagePlanId: plan,
        patchOperations: stages.map((value) => ({ op: 'add', path: '/apiStages', value })),
      }),
    );

    const created = await createOnStage('--plan', 'business');
    const { items } = await gateway.send(new GetUsagePlansCommand({ keyId: created.gatewayKeyId }));
    expect((items ?? []).map((p) => p.id)).toEqual([plan]);
    expect((items?.[0]?.apiStages ?? []).map((s) => `${s.apiId}:${s.stage}`).sort()).toEqual([...stages].sort());
  });

  test('keys revoke --stage revokes the record and deletes its API Gateway key and usage-plan binding', async () => {
    const created = await createOnStage('--plan', 'pro');

    const run = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`API Gateway key ${created.gatewayKeyId} is deleted, with its usage-plan binding`);
    // Deleted, not merely disabled: a disabled key still counts against the account's quota.
    expect(await gatewayKey(created.gatewayKeyId)).toBeUndefined();
    expect(await planKeyIds(planIds.staging.pro)).not.toContain(created.gatewayKeyId);
    expect(await authenticate(keys, created.key)).toBeUndefined();
    expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();

    // Again: nothing is left to delete.
    const before = await gatewayKeyCount();
    const again = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already revoked');
    expect(await gatewayKeyCount()).toBe(before);
  });

  test('revoking a key revoked earlier (its gateway key deleted by hand since) finishes and forgets it', async () => {
    const created = await createOnStage('--plan', 'free');
    await keys.revoke(created.id, new Date('2026-01-01T00:00:00Z'));
    await gateway.send(new DeleteApiKeyCommand({ apiKey: created.gatewayKeyId }));

    const run = await admin('--stage', 'staging', 'keys', 'revoke', created.id);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toBe(
      `${created.id} was already revoked at 2026-01-01T00:00:00.000Z. Its API Gateway key ${created.gatewayKeyId} is deleted, with its usage-plan binding.`,
    );
    expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();
  });

  test('a gateway deletion that fails leaves the gateway key recorded, so revoking again finishes it', async () => {
    const created = await createOnStage('--plan', 'business');
    const failing = stageAdmin({
      configure: (clients) => failNext(clients.apiGateway, 'DeleteApiKeyCommand', throttled()),
    });
    const run = await failing('--stage', 'staging', 'keys', 'revoke', created.id);
    expect(run.code).toBe(1);
    expect(await authenticate(keys, created.key)).toBeUndefined();
    expect((await keys.get(created.id))?.gatewayKeyId).toBe(created.gatewayKeyId);
    expect(await gatewayKey(created.gatewayKeyId)).toBeDefined();

    // The binding went in the first run: deleting it again gets AWS's NotFoundException (moto 5.2 answers 500).
    const retry = stageAdmin({
      configure: (clients) => {
        failNext(clients.apiGateway, 'DeleteUsagePlanKeyCommand', bindingGone());
      },
    });
    expect((await retry('--stage', 'staging', 'keys', 'revoke', created.id)).code).toBe(0);
    expect((await keys.get(created.id))?.gatewayKeyId).toBeUndefined();
    expect(await gatewayKey(created.gatewayKeyId)).toBeUndefined();
  });

  test('keys prune-gateway deletes the gateway keys revoked keys still have, and only those', async () => {
    const live = await createOnStage('--plan', 'free');
    const old = [
      await createOnStage('--plan', 'pro'),
      await createOnStage('--plan', 'enterprise', '--rpm', '5', '--rpd', '5'),
    ];
    for (const { id } of old) await keys.revoke(id, new Date('2026-01-01T00:00:00Z'));
    const leftBefore = (await keys.list()).filter((r) => r.revokedAt !== undefined && r.gatewayKeyId !== undefined);

    const run = await admin('--stage', 'staging', 'keys', 'prune-gateway');
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain(`Deleted the API Gateway keys of ${leftBefore.length} revoked keys`);
    for (const { gatewayKeyId } of leftBefore) expect(await gatewayKey(gatewayKeyId)).toBeUndefined();
    expect(await gatewayKey(live.gatewayKeyId)).toBeDefined();
    expect((await keys.get(live.id))?.gatewayKeyId).toBe(live.gatewayKeyId);
    expect((await keys.list()).filter((r) => r.revokedAt !== undefined && r.gatewayKeyId !== undefined)).toEqual([]);

    const again = await admin('--stage', 'staging', 'keys', 'prune-gateway');
    expect(again.stdout).toContain('No revoked key');
  });

  // A new stack that took the retained tables back (docs/operations.md) has new usage plans, holding no key.
  test('keys rebind puts every live key in its usage plan of a new stack, revoked ones not, and finds nothing to do again', async () => {
    const region = 'ap-southeast-2';
    const retained = await createTestTables();
    const cloudFormation = moto.cloudFormation(region);
    const apiGateway = moto.apiGateway(region);
    const outputs = (plans: Record<PlanName, string>) => ({
      ...Object.fromEntries(
        Object.entries(TABLE_NAME_OUTPUTS).map(([id, key]) => [key, retained.names[id as TableId]]),
      ),
      ...Object.fromEntries(PLAN_NAMES.map((plan) => [USAGE_PLAN_ID_OUTPUTS[plan], plans[plan]])),
    });
    const inRegion = stageAdmin({ region });
    try {
      await createStackWithOutputs(
        cloudFormation,
        stackNameFor('prod'),
        outputs(await createUsagePlans(apiGateway, PLAN_NAMES, 'old')),
      );
      const created = [];
      for (const plan of ['free', 'pro', 'free'] as const) {
        const run = await inRegion('--stage', 'prod', 'keys', 'create', '--plan', plan, '--json');
        expect(run).toMatchObject({ code: 0, stderr: '' });
        created.push({ plan, ...(JSON.parse(run.stdout) as { id: string; gatewayKeyId: string }) });
      }
      const [revoked, ...live] = created;
      expect((await inRegion('--stage', 'prod', 'keys', 'revoke', revoked?.id ?? '')).code).toBe(0);

      // The stack is deleted and deployed again on the retained tables: new usage plans.
      await cloudFormation.send(new DeleteStackCommand({ StackName: stackNameFor('prod') }));
      const plans = await createUsagePlans(apiGateway, PLAN_NAMES, 'new');
      await createStackWithOutputs(cloudFormation, stackNameFor('prod'), outputs(plans));
      const inPlan = async (plan: PlanName) =>
        ((await apiGateway.send(new GetUsagePlanKeysCommand({ usagePlanId: plans[plan] }))).items ?? []).map(
          (k) => k.id,
        );

      const run = await inRegion('--stage', 'prod', 'keys', 'rebind');
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`${live.length} of the ${live.length} live keys`);
      for (const key of live) expect(await inPlan(key.plan)).toContain(key.gatewayKeyId);
      expect(await inPlan('free')).toHaveLength(live.filter((key) => key.plan === 'free').length);

      const again = await inRegion('--stage', 'prod', 'keys', 'rebind');
      expect(again.stdout).toContain(`0 of the ${live.length} live keys`);
      expect(again.stdout).toContain(`${live.length} were in them already`);
    } finally {
      cloudFormation.destroy();
      apiGateway.destroy();
      await retained.drop();
    }
  });

  test('keys rebind on the local stack is a usage error', async () => {
    const run = await adminRunner(() => testTarget(tables))('keys', 'rebind');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('keys rebind needs --stage');
  });

  test('keys prune-gateway on the local stack is a usage error', async () => {
    const local = adminRunner(() => testTarget(tables));
    const run = await local('keys', 'prune-gateway');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('keys prune-gateway needs --stage');
  });

  test('a failed usage-plan attach removes the API key, revokes the record and never shows the key', async () => {
    const gone = Object.assign(new Error('Usage plan not found'), { name: 'NotFoundException' });
    const failing = stageAdmin({
      configure: (clients) => failNext(clients.apiGateway, 'CreateUsagePlanKeyCommand', gone),
    });
    const before = new Set((await keys.list()).map((r) => r.id));
    const gatewayKeysBefore = await gatewayKeyCount();

    const run = await failing('--stage', 'staging', 'keys', 'create', '--plan', 'business', '--json');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain('Usage plan not found');
    expect(run.stderr).toContain('not shown');
    expect(run.stderr).not.toMatch(/sok_/);
    const added = (await keys.list()).filter((r) => !before.has(r.id));
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ plan: 'business', revokedAt: expect.any(String) });
    expect(added[0]?.gatewayKeyId).toBeUndefined();
    expect(await gatewayKeyCount()).toBe(gatewayKeysBefore);
  });

  test('keys create and list --stage prod read the prod stack: its usage plans, the gateway key ids', async () => {
    const run = await admin('--stage', 'prod', 'keys', 'create', '--plan', 'free', '--json');
    const created = JSON.parse(run.stdout) as { key: string; id: string; gatewayKeyId: string };
    expect(await planKeyIds(planIds.prod.free)).toContain(created.gatewayKeyId);
    expect(await planKeyIds(planIds.staging.free)).not.toContain(created.gatewayKeyId);

    const list = await admin('keys', 'list', '--stage', 'prod');
    expect(list.code).toBe(0);
    expect(openedStages).toEqual(['prod', 'prod']);
    expect(list.stdout.split('\n')[0]).toContain('GATEWAY KEY');
    expect(list.stdout).toContain(created.gatewayKeyId);
    expect(list.stdout).not.toContain(created.key);
  });

  test("keys usage --stage reads the stage's rate-limit table", async () => {
    const created = await createOnStage('--plan', 'free');
    // One fixed clock for the request and the reading: with the real one, a request just before
    // 00:00 UTC was read the next day, with nothing used.
    const now = Date.parse('2026-11-22T23:59:59.999Z');
    await tables.stores({ now: () => now }).limiter.admit(created.id, PLAN_LIMITS.free);
    openedStages = [];
    const run = await stageAdmin({ now: () => new Date(now) })(
      '--stage',
      'staging',
      'keys',
      'usage',
      created.id,
      '--json',
    );
    expect(run.code).toBe(0);
    expect(openedStages).toEqual(['staging']);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: created.id,
      plan: 'free',
      day: { used: 1, remaining: PLAN_LIMITS.free.perDay - 1 },
    });
  });

  test('orders ship --stage works on the stage orders table, and touches no gateway key', async () => {
    const { orders } = tables.stores();
    await orders.create({ id: '9007199254740993', status: 'pending' });
    const before = await gatewayKeyCount();
    const run = await admin('--stage', 'staging', 'orders', 'ship', '9007199254740993');
    expect(run.code).toBe(0);
    expect((await orders.get('9007199254740993'))?.status).toBe('shipped');
    expect(await gatewayKeyCount()).toBe(before);
  });

  test('a stage whose stack does not exist is a clear failure, with nothing written', async () => {
    const before = (await keys.list()).length;
    const run = await stageAdmin({ region: EMPTY_REGION })('--stage', 'staging', 'keys', 'create', '--plan', 'free');
    expect(run).toMatchObject({ code: 1, stdout: '' });
    expect(run.stderr).toContain(`Stack StoreOrders-staging does not exist in ${EMPTY_REGION}`);
    expect(run.stderr).toContain('npx cdk deploy StoreOrders-staging');
    const empty = moto.apiGateway(EMPTY_REGION);
    expect(((await empty.send(new GetApiKeysCommand({}))).items ?? []).length).toBe(0);
    empty.destroy();
    expect(await keys.list()).toHaveLength(before);
  });

  test('a stack without the expected outputs is refused before anything is written', async () => {
    const before = (await keys.list()).length;
    const run = await stageAdmin({ region: OUTDATED_REGION })('--stage', 'staging', 'keys', 'create', '--plan', 'free');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`has no output ${USAGE_PLAN_ID_OUTPUTS.pro}`);
    expect(await keys.list()).toHaveLength(before);
  });

  test('missing AWS credentials are a clear failure', async () => {
    const noCredentials = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
    });
    const run = await stageAdmin({
      configure: (clients) => failNext(clients.cloudFormation, 'DescribeStacksCommand', noCredentials),
    })('--stage', 'prod', 'keys', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No AWS credentials found');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test('no AWS region is one line naming AWS_REGION, exit 2', async () => {
    const run = await stageAdmin({
      configure: (clients) => failNext(clients.cloudFormation, 'DescribeStacksCommand', new Error('Region is missing')),
    })('--stage', 'prod', 'keys', 'list');
    expect(run).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'Error: No AWS region is set: set AWS_REGION, or a region in your AWS profile, for --stage',
    });
  });
});
