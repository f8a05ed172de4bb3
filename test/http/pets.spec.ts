// The deprecated GET /v1/pets/{petId} over HTTP on the local stack: a Pet with exact int64 ids,
// 404 and 400 as for orders, and Deprecation and Sunset on every answer the service gives.
import { deprecationHeaders, routeByOperation } from '../../lib/contract/routes';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { createApiKey } from '../../lib/stores/key-service';
import { DEMO_ORDERS, DEMO_PETS } from '../../tools/local/demo-content';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';

const HEADERS = deprecationHeaders(routeByOperation('getPetById'));

let stack: LocalStack;
let key: string;

beforeAll(async () => {
  stack = await startLocalStack();
  ({ key } = await stack.newKey('pro'));
  await stack.app.pets.putMany(DEMO_PETS);
});
afterAll(() => stack.close());

function expectDeprecated(response: Response): void {
  expect(Object.keys(HEADERS).sort()).toEqual(['Deprecation', 'Sunset']);
  for (const [name, value] of Object.entries(HEADERS)) expect(response.headers.get(name)).toBe(value);
}

test('the demo data has a pet for every demo order’s petId', () => {
  const petIds = new Set(DEMO_PETS.map((pet) => pet.id));
  for (const order of DEMO_ORDERS) if (order.petId !== undefined) expect(petIds).toContain(order.petId);
});

test('a Pet, its int64 ids exact to the last digit, with Deprecation, Sunset and the rate-limit headers', async () => {
  const largest = DEMO_PETS.reduce((a, b) => (BigInt(a.id) > BigInt(b.id) ? a : b));
  const response = await stack.call('GET', `/v1/pets/${largest.id}`, bearer(key));
  expect(response.status).toBe(200);
  expectDeprecated(response);
  expect(response.headers.get(RATE_LIMIT_HEADERS.limit)).not.toBeNull();
  const text = await response.text();
  // Raw digits in the JSON text: a double would end ...808 or ...800.
  expect(text).toContain(`"id":${largest.id},`);
  // The label ids are small: as JSON numbers they parse exactly.
  const label = (l: { id?: string; name?: string } | undefined) => ({ id: Number(l?.id), name: l?.name });
  expect(JSON.parse(text)).toEqual({
    id: expect.any(Number),
    name: largest.name,
    category: label(largest.category),
    photoUrls: largest.photoUrls,
    tags: (largest.tags ?? []).map(label),
    status: largest.status,
  });
});

test('404 PET_NOT_FOUND for an unknown pet, with both headers', async () => {
  const response = await stack.call('GET', '/v1/pets/424242', bearer(key));
  expectDeprecated(response);
  await expectError(response, 404, 'PET_NOT_FOUND');
});

test.each(['abc', '007', '1.5', '1e3', '+1', '9223372036854775808'])(
  '400 INVALID_PET_ID for %s, as for order ids, with both headers',
  async (id) => {
    const response = await stack.call('GET', `/v1/pets/${id}`, bearer(key));
    expectDeprecated(response);
    await expectError(response, 400, 'INVALID_PET_ID');
  },
);

test('a read-only key may read a pet; no key is 401', async () => {
  const { key: reader } = await createApiKey(stack.app.keys, { plan: 'free', scope: 'read' });
  const [pet] = DEMO_PETS;
  expect((await stack.call('GET', `/v1/pets/${pet?.id}`, bearer(reader))).status).toBe(200);
  await expectError(await stack.call('GET', `/v1/pets/${pet?.id}`), 401, 'UNAUTHORIZED');
});
