import { lambdaContext } from '../../tools/local/proxy-event';
import type { ApiKeysRepository } from '../../lib/stores/api-keys';
import { createApiKey, authenticate } from '../../lib/stores/key-service';
import { generateApiKey } from '../../lib/core/access/key-format';
import { authorizeToken } from '../../lib/edge/authorizer';
import { makeAuthorizerHandler } from '../../lib/edge/authorizer-handler';
import { callerFromAuthorizerContext } from '../../lib/core/access/caller';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { DEFAULT_KEY_SCOPE } from '../../lib/contract/scopes';
import { policyAllows } from '../../tools/local/policy';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
let keys: ApiKeysRepository;
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:api1/v1/GET/store/orders';

beforeAll(async () => {
  tables = await createTestTables();
  keys = tables.stores().keys;
});
afterAll(() => tables.drop());

/** The keys store over a table that does not exist: any read fails with ResourceNotFound. */
const unreadableKeys = () => tables.stores({ tables: { ...tables.names, apiKeys: 'no-such-table' } }).keys;

test('a valid key gets an Allow on the whole stage, its hash as usage identifier, and its plan', async () => {
  const { key, record } = await createApiKey(keys, { plan: 'pro', name: 'shop' });
  const result = await authorizeToken(keys, { authorizationToken: `Bearer ${key}`, methodArn });
  expect(result.principalId).toBe(record.id);
  expect(result.policyDocument.Statement).toEqual([
    { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: 'arn:aws:execute-api:eu-west-1:123456789012:api1/v1/*' },
  ]);
  expect(result.usageIdentifierKey).toBe(record.hash);
  expect(result.context).toEqual({ keyId: record.id, plan: 'pro', ...PLAN_LIMITS.pro, scope: DEFAULT_KEY_SCOPE });
  // API Gateway may hand context values over as strings.
  const asStrings = Object.fromEntries(Object.entries(result.context).map(([k, v]) => [k, String(v)]));
  expect(callerFromAuthorizerContext(asStrings)).toEqual({
    keyId: record.id,
    plan: 'pro',
    limits: PLAN_LIMITS.pro,
  });
});

test("a read-only key's policy allows every GET of the stage and nothing else, cached answer included", async () => {
  const { key, record } = await createApiKey(keys, { plan: 'free', scope: 'read' });
  const result = await authorizeToken(keys, { authorizationToken: `Bearer ${key}`, methodArn });
  expect(result.principalId).toBe(record.id);
  expect(result.context).toMatchObject({ keyId: record.id, scope: 'read' });
  const stage = 'arn:aws:execute-api:eu-west-1:123456789012:api1/v1';
  // API Gateway reuses this answer for the token's next requests, whatever their route.
  expect(policyAllows(result.policyDocument, `${stage}/GET/store/orders`)).toBe(true);
  expect(policyAllows(result.policyDocument, `${stage}/GET/pets/7`)).toBe(true);
  expect(policyAllows(result.policyDocument, `${stage}/DELETE/store/orders/5`)).toBe(false);
  expect(policyAllows(result.policyDocument, `${stage}/POST/store/orders`)).toBe(false);
  // A full key's answer, for the same request, allows the DELETE.
  const full = await createApiKey(keys, { plan: 'free' });
  const fullResult = await authorizeToken(keys, { authorizationToken: `Bearer ${full.key}`, methodArn });
  expect(policyAllows(fullResult.policyDocument, `${stage}/DELETE/store/orders/5`)).toBe(true);
});

test('only the hash is stored, never the key', async () => {
  const { key, record } = await createApiKey(keys, { plan: 'free' });
  const stored = JSON.stringify(await keys.list());
  expect(stored).not.toContain(key);
  expect(stored).not.toContain(key.slice(4, 30));
  expect(stored).toContain(record.hash);
});

test('enterprise keys carry their own limits; other plans refuse custom ones', async () => {
  const { key } = await createApiKey(keys, { plan: 'enterprise', limits: { perMinute: 7, perDay: 70 } });
  expect((await authenticate(keys, key))?.limits).toEqual({ perMinute: 7, perDay: 70 });
  await expect(createApiKey(keys, { plan: 'enterprise' })).rejects.toThrow(/enterprise/);
  await expect(createApiKey(keys, { plan: 'free', limits: { perMinute: 7, perDay: 70 } })).rejects.toThrow(
    /enterprise/,
  );
});

test('revoked and unknown keys are refused with Unauthorized', async () => {
  const { key, record } = await createApiKey(keys, { plan: 'business' });
  await keys.revoke(record.id, new Date());
  await expect(authorizeToken(keys, { authorizationToken: `Bearer ${key}`, methodArn })).rejects.toThrow(
    'Unauthorized',
  );
  await expect(authorizeToken(keys, { authorizationToken: `Bearer ${generateApiKey()}`, methodArn })).rejects.toThrow(
    'Unauthorized',
  );
});

test('a malformed key is refused without a database read', async () => {
  const unreadable = unreadableKeys();
  const malformed = `${generateApiKey().slice(0, -1)}!`;
  for (const header of [`Bearer ${malformed}`, 'Bearer sok_short', 'Basic abc', '']) {
    await expect(authorizeToken(unreadable, { authorizationToken: header, methodArn })).rejects.toThrow('Unauthorized');
  }
  await expect(
    authorizeToken(unreadable, { authorizationToken: `Bearer ${generateApiKey()}`, methodArn }),
  ).rejects.toThrow(/non-existent table|not found|ResourceNotFound/i);
});

test('the middy handler refuses with Unauthorized and lets dependency failures through', async () => {
  const handler = makeAuthorizerHandler({ keys: unreadableKeys() });
  const context = lambdaContext('authorizer', { awsRequestId: 'r1' });
  await expect(handler({ type: 'TOKEN', authorizationToken: 'Bearer nope', methodArn }, context)).rejects.toThrow(
    'Unauthorized',
  );
  await expect(
    handler({ type: 'TOKEN', authorizationToken: `Bearer ${generateApiKey()}`, methodArn }, context),
  ).rejects.not.toThrow('Unauthorized');
});
