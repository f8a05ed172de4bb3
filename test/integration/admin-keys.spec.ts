import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import { authenticate } from '../../lib/stores/key-service';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { DEFAULT_KEY_SCOPE, SCOPE_METHODS } from '../../lib/contract/scopes';
import { localTarget } from '../../tools/admin/target';
import { adminRunner, testTarget, type Admin } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let repo: ApiKeysRepository;
let admin: Admin;

beforeAll(async () => {
  tables = await createTestTables();
  repo = tables.stores().keys;
  admin = adminRunner(() => testTarget(tables));
});
afterAll(() => tables.drop());

async function storedCount(): Promise<number> {
  const { Items } = await tables.doc.send(new ScanCommand({ TableName: tables.names.apiKeys }));
  return Items?.length ?? 0;
}

/** Creates a key with --json and returns the one object it printed. */
async function createJson(...options: string[]): Promise<Record<string, unknown>> {
  const run = await admin('keys', 'create', ...options, '--json');
  expect(run.code).toBe(0);
  expect(run.stdout.split('\n')).toHaveLength(1);
  return JSON.parse(run.stdout) as Record<string, unknown>;
}

describe('keys create', () => {
  test.each(['free', 'pro', 'business'] as const)(
    '%s: --json prints one object with the key, id, plan and limits',
    async (plan) => {
      const created = await createJson('--plan', plan, '--name', `ci ${plan}`);
      const key = created.key as string;
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(created).toEqual({
        key,
        id: keyIdFromHash(hashApiKey(key)),
        plan,
        scope: DEFAULT_KEY_SCOPE,
        name: `ci ${plan}`,
        limits: PLAN_LIMITS[plan],
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      const record = await repo.get(created.id as string);
      expect(record).toMatchObject({ plan, hash: hashApiKey(key), name: `ci ${plan}` });
      expect(JSON.stringify(record)).not.toContain(key);
    },
  );

  test('enterprise: takes its own limits, which the key then carries', async () => {
    const created = await createJson('--plan', 'enterprise', '--rpm', '5000', '--rpd', '2000000');
    expect(created).toMatchObject({ plan: 'enterprise', limits: { perMinute: 5000, perDay: 2000000 } });
    expect(created).not.toHaveProperty('name');
    const principal = await authenticate(repo, created.key as string);
    expect(principal).toMatchObject({ plan: 'enterprise', limits: { perMinute: 5000, perDay: 2000000 } });
  });

  test('without --json: the key on a line of its own, with its id, plan and limits', async () => {
    const run = await admin('keys', 'create', '--plan', 'pro');
    expect(run.code).toBe(0);
    const key =
      run.stdout
        .split('\n')
        .map((l) => l.trim())
        .find(isWellFormedApiKey) ?? '';
    expect(key).not.toBe('');
    expect(run.stdout.split(key)).toHaveLength(2);
    expect(run.stdout).toContain(keyIdFromHash(hashApiKey(key)));
    expect(run.stdout).toContain('pro');
    expect(run.stdout).toContain(`${PLAN_LIMITS.pro.perMinute}/min, ${PLAN_LIMITS.pro.perDay}/day`);
    expect(run.stderr).toBe('');
  });

  test.each([
    [['--plan', 'enterprise'], /--rpm .* --rpd/],
    [['--plan', 'enterprise', '--rpm', '10'], /--rpm .* --rpd/],
    [['--plan', 'enterprise', '--rpd', '10'], /--rpm .* --rpd/],
    [['--plan', 'enterprise', '--rpm', '0', '--rpd', '10'], /--rpm must be a whole number/],
    [['--plan', 'enterprise', '--rpm', '1.5', '--rpd', '10'], /--rpm must be a whole number/],
    [['--plan', 'enterprise', '--rpm', '10', '--rpd', '1e3'], /--rpd must be a whole number/],
    [['--plan', 'enterprise', '--rpm', '10', '--rpd', '99999999999'], /--rpd must be a whole number/],
    [['--plan', 'enterprise', '--rpm', '100', '--rpd', '10'], /at least --rpm/],
    [['--plan', 'free', '--rpm', '10', '--rpd', '100'], /only for enterprise/],
    [['--plan', 'pro', '--rpd', '100'], /only for enterprise/],
    [[], /needs --plan/],
    [['--plan', 'gold'], /--plan must be one of free, pro, business, enterprise/],
    [['--plan'], /argument missing/],
    [['--plan', 'free', '--plan', 'pro'], /more than once/],
    [['--plan', 'free', '--name', ''], /--name/],
    [['--plan', 'free', 'extra'], /takes no arguments/],
    [['--plan', 'free', '--scope', 'write'], /--scope must be one of full, read/],
    [['--plan', 'free', '--scope'], /argument missing/],
  ])('refuses %j with exit 2 and writes nothing', async (options, message) => {
    const before = await storedCount();
    const run = await admin('keys', 'create', ...options);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('--help');
    expect(await storedCount()).toBe(before);
  });
});

describe('keys revoke', () => {
  test('the created key authenticates until it is revoked', async () => {
    const { key, id } = (await createJson('--plan', 'free')) as { key: string; id: string };
    expect(await authenticate(repo, key)).toMatchObject({ keyId: id, plan: 'free' });

    const run = await admin('keys', 'revoke', id);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Revoked ${id}`);
    expect(await authenticate(repo, key)).toBeUndefined();
    expect((await repo.get(id))?.revokedAt).toBeDefined();
    // Its limiter item is marked too: the service refuses it while its authorization is cached.
    expect(await tables.stores().limiter.read(id)).toMatchObject({
      revoked: true,
      day: 0,
    });

    const again = await admin('keys', 'revoke', id);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('already revoked');
  });

  // "Already revoked" is what the stored record says, not a comparison of its revokedAt with the clock.
  test.each([
    ['in the same millisecond', '2026-11-22T12:00:00.000Z', '2026-11-22T12:00:00.000Z'],
    ['from a machine whose clock is behind the first', '2026-11-22T12:00:05.000Z', '2026-11-22T12:00:00.000Z'],
  ])('revoking again %s says it was already revoked, at the first time', async (_when, first, second) => {
    const { id } = (await createJson('--plan', 'free')) as { id: string };
    const adminAt = (iso: string) => adminRunner(() => testTarget(tables), { now: () => new Date(iso) });
    expect((await adminAt(first)('keys', 'revoke', id)).stdout).toContain(`Revoked ${id}`);
    const again = await adminAt(second)('keys', 'revoke', id);
    expect(again).toMatchObject({ code: 0, stdout: `${id} was already revoked at ${first}.` });
    expect((await repo.get(id))?.revokedAt).toBe(first);
  });

  test('an unknown id is a clear failure', async () => {
    const run = await admin('keys', 'revoke', 'key_0123456789abcdef0123');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No API key with id key_0123456789abcdef0123');
  });

  test('a key given instead of its id is refused without being echoed', async () => {
    const { key } = (await createJson('--plan', 'free')) as { key: string };
    const run = await admin('keys', 'revoke', key);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('looks like an API key');
    expect(run.stderr + run.stdout).not.toContain(key);
    expect(await authenticate(repo, key)).toBeDefined();
  });

  test.each([[[]], [['not-an-id']], [['key_1', 'key_2']]])('refuses %j with exit 2', async (args) => {
    expect((await admin('keys', 'revoke', ...args)).code).toBe(2);
  });
});

describe('keys create --scope read', () => {
  test('stores a read-only key, which authenticates with its scope, and says so in JSON and text', async () => {
    const created = await createJson('--plan', 'pro', '--scope', 'read');
    expect(created).toMatchObject({ plan: 'pro', scope: 'read' });
    expect(await repo.get(created.id as string)).toMatchObject({ scope: 'read' });
    expect(await authenticate(repo, created.key as string)).toMatchObject({ keyId: created.id, scope: 'read' });

    const text = await admin('keys', 'create', '--plan', 'free', '--scope', 'read');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`  scope:   read (${(SCOPE_METHODS.read ?? []).join(', ')} only)`);
  });

  test("keys list shows each key's scope; a record written before scopes has full access", async () => {
    const read = await createJson('--plan', 'free', '--scope', 'read', '--name', 'reporting');
    // A key as stored before scopes existed: no scope attribute at all.
    const legacy = await createJson('--plan', 'free', '--name', 'legacy');
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.names.apiKeys,
        Key: { id: legacy.id },
        UpdateExpression: 'REMOVE #s',
        ExpressionAttributeNames: { '#s': 'scope' },
      }),
    );

    const listed = JSON.parse((await admin('keys', 'list', '--json')).stdout) as Record<string, unknown>[];
    expect(listed.find((k) => k.id === read.id)).toMatchObject({ scope: 'read' });
    expect(listed.find((k) => k.id === legacy.id)).toMatchObject({ scope: DEFAULT_KEY_SCOPE });

    const lines = (await admin('keys', 'list')).stdout.split('\n');
    expect(lines.find((l) => l.includes(read.id as string))).toMatch(/\sread\s/);
    expect(lines.find((l) => l.includes(legacy.id as string))).toMatch(new RegExp(`\\s${DEFAULT_KEY_SCOPE}\\s`));
  });
});

describe('keys list', () => {
  test('shows every key without the key or its hash', async () => {
    const created = await createJson('--plan', 'business', '--name', 'listed');
    await admin('keys', 'revoke', created.id as string);
    const records = await repo.list();
    const secrets = [created.key as string, ...records.map((r) => r.hash)];

    const json = await admin('keys', 'list', '--json');
    expect(json.code).toBe(0);
    const listed = JSON.parse(json.stdout) as Record<string, unknown>[];
    expect(listed.map((k) => k.id)).toEqual(records.map((r) => r.id));
    expect(listed.find((k) => k.id === created.id)).toEqual({
      id: created.id,
      plan: 'business',
      scope: DEFAULT_KEY_SCOPE,
      name: 'listed',
      limits: PLAN_LIMITS.business,
      createdAt: created.createdAt,
      revokedAt: expect.any(String),
    });
    for (const entry of listed) expect(Object.keys(entry)).not.toContain('hash');

    const text = await admin('keys', 'list');
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')[0]).toMatch(/^ID\s+PLAN\s+SCOPE\s+LIMITS\s+CREATED\s+REVOKED\s+NAME$/);
    expect(text.stdout).toContain(created.id as string);
    for (const secret of secrets) {
      expect(json.stdout).not.toContain(secret);
      expect(text.stdout).not.toContain(secret);
    }
  });

  test('refuses options of other commands', async () => {
    const run = await admin('keys', 'list', '--plan', 'free');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('keys list does not take --plan');
  });
});

describe('usage and failures', () => {
  test('--help prints the usage and exits 0', async () => {
    for (const argv of [['--help'], ['-h'], ['help'], ['keys', 'create', '--help']]) {
      const run = await admin(...argv);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('Usage: store-orders-admin');
      expect(run.stdout).toContain('orders import <file.json>');
    }
  });

  test.each([
    [[], /No command given/],
    [['frobnicate'], /Unknown command "frobnicate"/],
    [['keys'], /keys needs a command/],
    [['keys', 'rotate'], /Unknown command "keys rotate"/],
    [['keys', 'list', '--verbose'], /Unknown option '--verbose'/],
    [['--stage', 'dev', 'keys', 'list'], /--stage must be one of staging, prod/],
    [['orders', 'ship'], /orders ship takes <order-id>/],
  ])('%j exits 2 with a message and no stack trace', async (argv, message) => {
    const run = await admin(...argv);
    expect(run).toMatchObject({ code: 2, stdout: '' });
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test('an unreachable DynamoDB is a failure that says what to check', async () => {
    const unreachable = adminRunner(() => localTarget({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' }));
    const run = await unreachable('keys', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('Cannot reach the local stack (DynamoDB at http://127.0.0.1:1)');
    expect(run.stderr).toContain('DYNAMODB_ENDPOINT');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    // No stack recorded (a state folder of its own, empty): the hint says to start one.
    const none = await localTarget({ LOCAL_STACK_STATE_DIR: join(tmpdir(), 'no-such-state-folder') });
    none.close();
    expect(none.unreachableHint).toContain('npm start');
  });

  test('a missing table is a failure that points at the local stack', async () => {
    const missing = adminRunner(() =>
      localTarget({ DYNAMODB_ENDPOINT: tables.endpoint, API_KEYS_TABLE: 'no-such-table' }),
    );
    const run = await missing('keys', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/table .* does not exist/);
  });
});
