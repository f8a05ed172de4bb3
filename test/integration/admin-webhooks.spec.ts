// `webhooks create|list|delete|rotate-secret` in process against the embedded server: the API's own
// rules (URL, addresses, the cap, types), a secret printed once, and one line for every wrong use.
import { Webhook } from 'standardwebhooks';
import { createApiKey } from '../../lib/stores/key-service';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import type { WebhookEndpointsRepository } from '../../lib/stores/webhook-endpoints';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_LIMITS } from '../../lib/contract/webhooks';
import { DEPLOYED_RULES, LOCAL_STACK_RULES } from '../../lib/core/webhooks/url-rules';
import { signedHeaders } from '../../lib/core/webhooks/signature';
import { tablesTarget } from '../../tools/admin/target';
import { adminRunner, type Admin } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let keys: ApiKeysRepository;
let endpoints: WebhookEndpointsRepository;
let admin: Admin;
let deployedAdmin: Admin;

/** An attacker's DNS, and a public host. */
const resolve = async (host: string): Promise<string[]> =>
  ({ 'hooks.example.com': ['93.184.216.34'], 'metadata.attacker.example': ['169.254.169.254'] })[host] ?? [];

beforeAll(async () => {
  tables = await createTestTables();
  ({ keys, webhookEndpoints: endpoints } = tables.stores());
  const target = (rules: typeof DEPLOYED_RULES) => () =>
    tablesTarget({
      wiring: { endpoint: tables.endpoint, tables: tables.names },
      label: 'the test tables',
      unreachableHint: '',
      clock: Date.now,
      webhookDestinations: { rules, resolve },
    });
  admin = adminRunner(target(LOCAL_STACK_RULES));
  deployedAdmin = adminRunner(target(DEPLOYED_RULES));
});
afterAll(() => tables.drop());

const newKeyId = async () => (await createApiKey(keys, { plan: 'free' })).record.id;

test('create prints the endpoint and its secret once; list shows it without the secret; rotate and delete', async () => {
  const keyId = await newKeyId();
  const created = await admin(
    'webhooks',
    'create',
    '--key',
    keyId,
    '--url',
    'https://hooks.example.com/o',
    '--events',
    'order.shipped, order.created',
    '--json',
  );
  expect(created.code).toBe(0);
  const endpoint = JSON.parse(created.stdout) as {
    id: string;
    secret: string;
    eventTypes: string[];
    ownerKeyId: string;
  };
  expect(endpoint).toMatchObject({
    ownerKeyId: keyId,
    url: 'https://hooks.example.com/o',
    eventTypes: ['order.created', 'order.shipped'],
  });
  const headers = signedHeaders([endpoint.secret], 'evt_1', Math.floor(Date.now() / 1000), '{}');
  expect(new Webhook(endpoint.secret).verify('{}', headers)).toEqual({});

  const listed = await admin('webhooks', 'list', '--key', keyId);
  expect(listed.code).toBe(0);
  expect(listed.stdout).toContain(endpoint.id);
  expect(listed.stdout).toContain('enabled');
  expect(listed.stdout).not.toContain('whsec_');
  expect((await admin('webhooks', 'list', '--json')).stdout).toContain(endpoint.id);

  const rotated = await admin('webhooks', 'rotate-secret', endpoint.id);
  expect(rotated.code).toBe(0);
  const secret = /whsec_\S+/.exec(rotated.stdout)?.[0];
  expect(secret).toBeDefined();
  expect(rotated.stdout).toContain('the previous secret signs too until');
  expect((await endpoints.getOwned(keyId, endpoint.id))?.secrets).toMatchObject({
    current: secret,
    previous: { secret: endpoint.secret },
  });

  const deleted = await admin('webhooks', 'delete', endpoint.id);
  expect(deleted).toMatchObject({ code: 0, stderr: '' });
  expect(await endpoints.listOwned(keyId)).toEqual([]);
  expect(await admin('webhooks', 'delete', endpoint.id)).toMatchObject({
    code: 1,
    stderr: `Error: No webhook endpoint ${endpoint.id} in the test tables`,
  });
});

test('the local stack takes a loopback http URL; the deployed rules refuse it, the metadata host and its name', async () => {
  const keyId = await newKeyId();
  expect((await admin('webhooks', 'create', '--key', keyId, '--url', 'http://127.0.0.1:4000/h')).code).toBe(0);
  const refused = async (url: string) => deployedAdmin('webhooks', 'create', '--key', keyId, '--url', url);
  expect((await refused('http://127.0.0.1:4000/h')).stderr).toMatch(/^Error: url must be https/);
  expect((await refused('https://169.254.169.254/')).stderr).toContain('169.254.169.254 is the cloud metadata address');
  expect((await refused('https://metadata.attacker.example/')).stderr).toContain(
    '169.254.169.254 is the cloud metadata address ("metadata.attacker.example" resolves to it)',
  );
  expect((await refused('https://10.0.0.1/')).code).toBe(2);
});

test("a key's cap holds for operators too", async () => {
  const keyId = await newKeyId();
  for (let n = 0; n < WEBHOOK_LIMITS.endpointsPerKey; n++)
    expect((await admin('webhooks', 'create', '--key', keyId, '--url', `https://hooks.example.com/${n}`)).code).toBe(0);
  const over = await admin('webhooks', 'create', '--key', keyId, '--url', 'https://hooks.example.com/x');
  expect(over).toMatchObject({ code: 1 });
  expect(over.stderr).toContain(`already has ${WEBHOOK_LIMITS.endpointsPerKey} webhook endpoints`);
});

test.each([
  [['webhooks', 'create', '--url', 'https://hooks.example.com'], 'webhooks create needs --key'],
  [['webhooks', 'create', '--key', 'key_00000000000000000001'], 'webhooks create needs --url'],
  [['webhooks', 'create', '--key', 'nope', '--url', 'https://hooks.example.com'], 'A key id is key_ followed by 20'],
  [
    [
      'webhooks',
      'create',
      '--key',
      'key_00000000000000000001',
      '--url',
      'https://hooks.example.com',
      '--events',
      'order.paid',
    ],
    `--events has the unknown event type "order.paid": each is one of ${WEBHOOK_EVENT_TYPES.join(', ')}`,
  ],
  [
    [
      'webhooks',
      'create',
      '--key',
      'key_00000000000000000001',
      '--url',
      'https://hooks.example.com',
      '--events',
      'order.shipped,order.shipped',
    ],
    '--events names order.shipped twice',
  ],
  [['webhooks', 'create', '--key', 'key_00000000000000000001', '--url', 'not a url'], 'is not an absolute URL'],
  [['webhooks', 'delete', 'whe_1'], 'An endpoint id is whe_ followed by 24 hex digits'],
  [['webhooks', 'rotate-secret'], 'webhooks rotate-secret takes <endpoint-id>'],
  [['webhooks', 'delete', '--url', 'x', 'whe_000000000000000000000000'], 'webhooks delete does not take --url'],
  [['webhooks', 'list', '--key', 'sok_abc'], 'That looks like an API key, not a key id'],
  [['webhooks'], 'webhooks needs a command'],
])('%j is one line, exit 2: %s', async (argv, message) => {
  const run = await admin(...argv);
  expect(run.code).toBe(2);
  expect(run.stderr.split('\n')).toHaveLength(1);
  expect(run.stderr).toContain(message);
});

test('an unknown or revoked key gets no endpoint', async () => {
  const unknown = await admin(
    'webhooks',
    'create',
    '--key',
    'key_ffffffffffffffffffff',
    '--url',
    'https://hooks.example.com',
  );
  expect(unknown).toMatchObject({
    code: 1,
    stderr: 'Error: No live API key with id key_ffffffffffffffffffff in the test tables',
  });
  const keyId = await newKeyId();
  await keys.revoke(keyId, new Date());
  expect((await admin('webhooks', 'create', '--key', keyId, '--url', 'https://hooks.example.com')).code).toBe(1);
});
