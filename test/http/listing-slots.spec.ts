// The per-key cap on listings in flight over HTTP, on the local stack: a client that hangs up in
// the middle of a listing leaves no slot taken, and the refusal is an ordinary documented 429.
// (Deployed, Lambda does not stop a streamed function when its client goes away: the listing runs
// on and frees its slot when it ends or at the deadline. The local gateway stops it, as here.)

import { request } from 'node:http';
import type { OrdersHandlerDeps } from '../../lib/edge/orders-handlers';
import { STAGE_HOLDER, type ListingsInFlight } from '../../lib/stores/listings-in-flight';
import { ERRORS, SERVICE_UNAVAILABLE_ANSWER } from '../../lib/contract/errors';
import { composeService } from '../../lib/root/service';
import { LISTINGS_IN_FLIGHT } from '../../lib/contract/plans';
import { ROUTES } from '../../lib/contract/routes';
import { OPERATION_CONTRACTS } from '../../lib/contract/operations';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';
import { ordersJsonPage } from '../../lib/core/orders/orders-json';

/** The endless route's stage-wide cap on listings in flight: small, so two keys fill it. */
const STAGE_CAP = 2;
let base: LocalStack;
let stack: LocalStack;
let listings: ListingsInFlight;
/** Each endless listing's gate, opened by a test to let it go on past its first page. */
const gates: (() => void)[] = [];
const openGates = () => gates.splice(0).forEach((open) => open());
let pagesSent = 0;

/** A listing that never ends by itself: its first page, then pages for as long as it is read. */
const endless: OrdersHandlerDeps['orders'] = {
  cancel: async () => undefined,
  async *listingPages() {
    const gate = new Promise<void>((resolve) => gates.push(resolve));
    yield ordersJsonPage([{ id: '1', status: 'pending' as const }]);
    await gate;
    for (let id = 2; ; id++) {
      pagesSent++;
      yield ordersJsonPage([{ id: String(id), status: 'pending' as const }]);
      await new Promise((resolve) => setImmediate(resolve));
    }
  },
};

beforeAll(async () => {
  base = await startLocalStack();
  listings = base.app.listings;
  const route = ROUTES.find((r) => r.operationId === 'listOrders');
  if (!route) throw new Error('listOrders is not declared');
  stack = await startLocalStack({
    contracts: { listEndless: OPERATION_CONTRACTS.listOrders ?? { errors: [] } },
    extraRoutes: [
      {
        route: { ...route, operationId: 'listEndless', path: '/endless' },
        handler: composeService({
          endpoint: base.tables.endpoint,
          tables: base.tables.names,
          now: base.clock.now,
          stageListingsCap: STAGE_CAP,
          standIns: { orders: endless },
        }).listOrders,
      },
    ],
  });
});
afterAll(async () => {
  await stack?.close();
  await base?.close();
});

/** Resolves once the slots of `keyId` held reach `count`; the check is repeated a bounded number of times. */
async function heldBecomes(keyId: string, count: number): Promise<number> {
  let held = -1;
  for (let attempt = 0; attempt < 200; attempt++) {
    held = await listings.held(keyId, LISTINGS_IN_FLIGHT.free);
    if (held === count) return held;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return held;
}

/** Starts an endless listing; resolves at its first bytes with the way to hang it up. */
function startListing(key: string): Promise<() => void> {
  return new Promise<() => void>((resolve, reject) => {
    const req = request(`${stack.baseUrl}/v1/endless`, { headers: bearer(key) }, (res) => {
      res.once('data', () => resolve(() => req.destroy()));
      res.on('error', () => undefined);
    });
    req.on('error', () => undefined);
    req.once('error', reject);
    req.end();
  });
}

test('a client that hangs up mid-stream leaves no slot taken, and the next listing of the key runs', async () => {
  const { key, id } = await stack.newKey('free');
  const hangUps: (() => void)[] = [];
  // One after the other, so each has its slot before the next asks.
  for (let n = 0; n < LISTINGS_IN_FLIGHT.free; n++) hangUps.push(await startListing(key));
  // Streaming: every slot of the key is taken, one more listing is refused.
  expect(await listings.held(id, LISTINGS_IN_FLIGHT.free)).toBe(LISTINGS_IN_FLIGHT.free);
  const refused = await stack.call('GET', '/v1/endless', bearer(key));
  await expectError(refused, 429, 'TOO_MANY_LISTINGS');
  expect(refused.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);

  hangUps.forEach((hangUp) => hangUp());
  openGates();
  expect(await heldBecomes(id, 0)).toBe(0);
  // The listing stopped with its client: no page is read after the slot was given back.
  const sent = pagesSent;
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(pagesSent).toBe(sent);

  // The slot is free again: the next listing starts (and is cut by this test in turn).
  const again = await new Promise<number>((resolve, reject) => {
    const req = request(`${stack.baseUrl}/v1/endless`, { headers: bearer(key) }, (res) => {
      resolve(res.statusCode ?? 0);
      req.destroy();
    });
    req.on('error', () => undefined);
    req.once('error', reject);
    req.end();
  });
  expect(again).toBe(200);
  openGates();
  expect(await heldBecomes(id, 0)).toBe(0);
});

test('listings of several keys fill the stage-wide cap: the next is answered 503 with Retry-After, and a hang-up frees its slot', async () => {
  const keys = await Promise.all(Array.from({ length: STAGE_CAP + 1 }, () => stack.newKey('free')));
  const hangUps: (() => void)[] = [];
  for (const { key } of keys.slice(0, STAGE_CAP)) hangUps.push(await startListing(key));
  expect(await listings.held(STAGE_HOLDER, STAGE_CAP)).toBe(STAGE_CAP);

  const last = keys[STAGE_CAP];
  if (!last) throw new Error('no key left');
  const refused = await stack.call('GET', '/v1/endless', bearer(last.key));
  await expectError(refused, ERRORS.SERVICE_UNAVAILABLE.status, 'SERVICE_UNAVAILABLE');
  expect(refused.headers.get('retry-after')).toBe(SERVICE_UNAVAILABLE_ANSWER.headers['Retry-After']);
  // Refused for the stage before its own lease was taken: the key holds nothing.
  expect(await listings.held(last.id, LISTINGS_IN_FLIGHT.free)).toBe(0);

  hangUps.forEach((hangUp) => hangUp());
  openGates();
  expect(await stageHeldBecomes(0)).toBe(0);
});

/** Resolves once the stage's slots held reach `count`; the check is repeated a bounded number of times. */
async function stageHeldBecomes(count: number): Promise<number> {
  let held = -1;
  for (let attempt = 0; attempt < 200; attempt++) {
    held = await listings.held(STAGE_HOLDER, STAGE_CAP);
    if (held === count) return held;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return held;
}
