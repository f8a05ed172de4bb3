// `canary-key create` against a stage as AWS would answer: CloudFormation, API Gateway and Secrets
// Manager are moto_server (test/support/moto.ts), the tables the embedded DynamoDB. The stage's
// secret starts as the stack leaves it, holding a generated placeholder.
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { GetApiKeysCommand, type APIGatewayClient } from '@aws-sdk/client-api-gateway';
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import {
  CANARY_KEY_SECRET_OUTPUT,
  stackNameFor,
  TABLE_NAME_OUTPUTS,
  USAGE_PLAN_ID_OUTPUTS,
} from '../../lib/contract/deployment';
import { PLAN_NAMES, type PlanName } from '../../lib/contract/plans';
import { hashApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { authenticate } from '../../lib/stores/key-service';
import { makeAuthorizerHandler } from '../../lib/edge/authorizer-handler';
import { RELEASE_CHECKS } from '../../infra/release-hook/checks';
import { lambdaContext } from '../../tools/local/proxy-event';
import { stageTarget } from '../../tools/admin/stage';
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

describeWithMoto('canary-key create against moto_server', () => {
  /** A Region of moto whose stage stack predates the canary key: no output names a secret. */
  const OUTDATED_REGION = 'eu-central-1';
  const PLACEHOLDER = 'generated-placeholder-0123456789abcdef';

  let moto: Moto;
  let tables: TestTables;
  let keys: ApiKeysRepository;
  let gateway: APIGatewayClient;
  let secrets: SecretsManagerClient;
  let secretArn: string;
  let planIds: Record<PlanName, string>;
  let configure: (clients: { secretsManager?: SecretsManagerClient }) => void;

  function stageAdmin(region?: string): Admin {
    return adminRunner(
      () => {
        throw new Error('--stage must not touch the local stack');
      },
      {
        stage: (name) => {
          const clients = {
            cloudFormation: moto.cloudFormation(region),
            apiGateway: moto.apiGateway(region),
            secretsManager: moto.secretsManager(region),
            dynamo: { endpoint: tables.endpoint },
          };
          configure(clients);
          return stageTarget(name, clients);
        },
      },
    );
  }

  function outputs(plans: Record<PlanName, string>): Record<string, string> {
    return {
      ...Object.fromEntries(Object.entries(TABLE_NAME_OUTPUTS).map(([id, key]) => [key, tables.names[id as never]])),
      ...Object.fromEntries(PLAN_NAMES.map((plan) => [USAGE_PLAN_ID_OUTPUTS[plan], plans[plan]])),
    };
  }

  beforeAll(async () => {
    [moto, tables] = await Promise.all([startMoto(), createTestTables()]);
    keys = tables.stores().keys;
    gateway = moto.apiGateway();
    secrets = moto.secretsManager();
    const created = await secrets.send(new CreateSecretCommand({ Name: 'canary', SecretString: PLACEHOLDER }));
    secretArn = created.ARN ?? '';
    planIds = await createUsagePlans(gateway, PLAN_NAMES, 'staging');
    const cloudFormation = moto.cloudFormation();
    await createStackWithOutputs(cloudFormation, stackNameFor('staging'), {
      ...outputs(planIds),
      [CANARY_KEY_SECRET_OUTPUT]: secretArn,
    });
    const outdated = {
      cloudFormation: moto.cloudFormation(OUTDATED_REGION),
      apiGateway: moto.apiGateway(OUTDATED_REGION),
    };
    const outdatedPlans = await createUsagePlans(outdated.apiGateway, PLAN_NAMES, 'outdated');
    await createStackWithOutputs(outdated.cloudFormation, stackNameFor('staging'), outputs(outdatedPlans));
    for (const client of [cloudFormation, outdated.cloudFormation, outdated.apiGateway]) client.destroy();
  });
  afterAll(async () => {
    gateway.destroy();
    secrets.destroy();
    await Promise.all([tables.drop(), moto.stop()]);
  });
  beforeEach(async () => {
    configure = () => undefined;
    await secrets.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: PLACEHOLDER }));
  });

  const stored = async () =>
    (await secrets.send(new GetSecretValueCommand({ SecretId: secretArn }))).SecretString ?? '';
  const gatewayKeyCount = async () => ((await gateway.send(new GetApiKeysCommand({}))).items ?? []).length;
  const create = (...options: string[]) => stageAdmin()('--stage', 'staging', 'canary-key', 'create', ...options);

  test('stores a new key in the stage secret, never printing it; the release hook authorizes it as itself', async () => {
    const before = await gatewayKeyCount();
    const run = await create();
    expect(run.code).toBe(0);
    const key = await stored();
    const id = keyIdFromHash(hashApiKey(key));
    expect(run.stdout).toBe(
      `Stored the new release canary key ${id} of stage staging (stack StoreOrders-staging in eu-west-1) in ${secretArn}.`,
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(key.slice(4));
    expect(await keys.get(id)).toMatchObject({ plan: 'free', scope: 'read', releaseCanary: true });
    // No API Gateway key: the API refuses it, and no usage plan counts it.
    expect(await gatewayKeyCount()).toBe(before);
    expect((await keys.get(id))?.gatewayKeyId).toBeUndefined();

    // What the authorizer's hook does with it: a new version that allows it as itself passes.
    const check = RELEASE_CHECKS.authorizer.find((c) => c.name.includes('canary'));
    const prepared = await check?.prepare({ canaryKey: stored });
    const answer = await makeAuthorizerHandler({ keys })(
      prepared?.event as APIGatewayTokenAuthorizerEvent,
      lambdaContext('authorizer'),
    );
    expect(prepared?.judge({ payload: Buffer.from(JSON.stringify(answer)) })).toBeUndefined();
  });

  test('run again, it rotates: the new key is stored, then the previous one is revoked', async () => {
    await create();
    const first = keyIdFromHash(hashApiKey(await stored()));
    const run = await create();
    const second = keyIdFromHash(hashApiKey(await stored()));
    expect(run.code).toBe(0);
    expect(second).not.toBe(first);
    expect(run.stdout).toMatch(
      new RegExp(`^Stored the new release canary key ${second} .*; revoked the previous ${first}\\.$`),
    );
    expect((await keys.get(first))?.revokedAt).toBeDefined();
    expect(await authenticate(keys, await stored())).toMatchObject({ keyId: second });
  });

  test('--if-missing leaves a live stored key alone, and replaces a revoked one or the placeholder', async () => {
    const placeholder = await create('--if-missing');
    expect(placeholder.code).toBe(0);
    const first = await stored();
    const id = keyIdFromHash(hashApiKey(first));
    const again = await create('--if-missing');
    expect(again).toMatchObject({ code: 0, stderr: '' });
    expect(again.stdout).toContain(`is stored and live (${id}): nothing to do.`);
    expect(await stored()).toBe(first);

    await stageAdmin()('--stage', 'staging', 'keys', 'revoke', id);
    const revoked = await create('--if-missing');
    expect(revoked.code).toBe(0);
    expect(await stored()).not.toBe(first);
    expect(await authenticate(keys, await stored())).toBeDefined();
  });

  test('a key stored by hand the old way (with an API Gateway key) is revoked on rotation, its gateway key deleted', async () => {
    const made = await stageAdmin()(
      '--stage',
      'staging',
      'keys',
      'create',
      '--plan',
      'free',
      '--scope',
      'read',
      '--json',
    );
    const old = JSON.parse(made.stdout) as { key: string; id: string; gatewayKeyId: string };
    await secrets.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: `${old.key}\n` }));
    const before = await gatewayKeyCount();

    const run = await create('--if-missing');
    expect(run.stdout).toContain(`(${old.id}): nothing to do.`);
    const rotated = await create();
    // With any canary key an earlier test left live: whatever live canary key there was goes.
    expect(rotated.stdout).toMatch(new RegExp(`; revoked the previous (key_\\w+, )*${old.id}(, key_\\w+)*\\.$`));
    expect(await keys.get(old.id)).toMatchObject({ revokedAt: expect.any(String) });
    expect((await keys.get(old.id))?.gatewayKeyId).toBeUndefined();
    expect(await gatewayKeyCount()).toBe(before - 1);
  });

  test('keys list and keys usage leave the canary key out: it is no client key', async () => {
    await create();
    const id = keyIdFromHash(hashApiKey(await stored()));
    const list = await stageAdmin()('--stage', 'staging', 'keys', 'list', '--json');
    const listed = (JSON.parse(list.stdout) as { id: string }[]).map((k) => k.id);
    expect(listed).not.toContain(id);
    expect((await keys.list()).map((r) => r.id)).toContain(id);
    expect((await stageAdmin()('--stage', 'staging', 'keys', 'list')).stdout).not.toContain(id);

    const usage = await stageAdmin()('--stage', 'staging', 'keys', 'usage', id);
    expect(usage).toMatchObject({ code: 1, stdout: '' });
    expect(usage.stderr).toBe(
      `Error: ${id} is the release canary key of stage staging (stack StoreOrders-staging in eu-west-1): it has no API Gateway key, ` +
        'so the API refuses it and nothing counts its use; only the release hook calls the authorizer with it ' +
        '(docs/operations.md#the-release-canary-key).',
    );
  });

  test('a secret that cannot be written: the new key is revoked, the secret keeps what it held, one line', async () => {
    configure = (clients) => {
      if (clients.secretsManager)
        failNext(
          clients.secretsManager,
          'PutSecretValueCommand',
          Object.assign(new Error('User is not authorized to perform secretsmanager:PutSecretValue'), {
            name: 'AccessDeniedException',
          }),
        );
    };
    const live = (await keys.list()).filter((r) => r.releaseCanary && !r.revokedAt).length;
    const run = await create();
    expect(run.code).toBe(1);
    expect(run.stderr.split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /^Error: Could not store the new canary key in .+: User is not authorized .+\. The new key key_\w+ is revoked; the secret holds what it held\. Run the command again\.$/,
    );
    expect(await stored()).toBe(PLACEHOLDER);
    expect((await keys.list()).filter((r) => r.releaseCanary && !r.revokedAt)).toHaveLength(live);
  });

  test('a stack without the canary secret output, and the local stack, are refused in one line', async () => {
    const outdated = await stageAdmin(OUTDATED_REGION)('--stage', 'staging', 'canary-key', 'create');
    expect(outdated).toMatchObject({ code: 1, stdout: '' });
    expect(outdated.stderr).toBe(
      `Error: The stack of stage staging (stack StoreOrders-staging in ${OUTDATED_REGION}) has no output ${CANARY_KEY_SECRET_OUTPUT}: ` +
        'deploy the current version first (its first deploy needs no canary key: a new alias has no traffic to shift, so no hook runs).',
    );
    const local = await adminRunner(() => testTarget(tables))('canary-key', 'create');
    expect(local.code).toBe(2);
    expect(local.stderr).toBe(
      'Error: canary-key create needs --stage: only a deployed stage has release hooks (npm run admin -- --help lists the commands)',
    );
  });
});
