// A client that hangs up in the middle of a listing, at the handler as Lambda invokes it, on the
// embedded server: the response stream closes, no Scan page is read after the one in flight, and
// the key's slot (and the stage's) is free again.

import type { APIGatewayProxyEvent } from 'aws-lambda';
import { invokeStreamed } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { buildProxyEvent, lambdaContext } from '../../tools/local/proxy-event';
import { routeByOperation } from '../../lib/contract/routes';
import { callerContext } from '../../lib/core/access/caller';
import { LISTINGS_IN_FLIGHT, PLAN_LIMITS } from '../../lib/contract/plans';
import { makeListOrdersHandler } from '../../lib/edge/orders-handlers';
import { STAGE_HOLDER } from '../../lib/stores/listings-in-flight';
import { documentClient } from '../../lib/root/wiring';
import type { Order } from '../../lib/contract/order';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

const PAGE_SIZE = 10;
const ORDERS: Order[] = Array.from({ length: 40 * PAGE_SIZE }, (_, i) => ({ id: String(i + 1), status: 'pending' }));
const STAGE_CAP = 2;
let tables: TestTables;
const clock = testClock();

beforeAll(async () => {
  installLocalLambdaRuntime();
  tables = await createTestTables();
  await tables.stores().seeding.putMany(ORDERS);
});
afterAll(() => tables.drop());

test('hanging up mid-stream stops the Scan and frees the slot', async () => {
  const { orders, limiter, listings, wiring } = tables.stores({ now: clock.now, stageListingsCap: STAGE_CAP });
  let scans = 0;
  documentClient(wiring).middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'ScanCommand') scans++;
      return next(args);
    },
    { step: 'initialize', name: 'countScans' },
  );
  const handler = makeListOrdersHandler({
    orders,
    limiter,
    listings,
    scan: { segments: 1, pageSize: PAGE_SIZE },
  });
  const keyId = 'key_hang_up';
  const event: APIGatewayProxyEvent = buildProxyEvent({
    route: routeByOperation('listOrders'),
    requestId: 'hang-up',
    headers: { 'Accept-Encoding': 'identity' },
    authorizer: { principalId: keyId, context: callerContext({ keyId, plan: 'free', limits: PLAN_LIMITS.free }) },
  });

  // A client that reads the first bytes, then goes away while the listing is still being sent.
  let hangUp!: () => void;
  const firstBytes = new Promise<void>((resolve) => (hangUp = resolve));
  const { stream, done } = invokeStreamed(handler, event, lambdaContext('list-orders'), {
    head: () => undefined,
    write: async () => hangUp(),
    end: () => undefined,
  });
  await firstBytes;
  expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(1);
  stream.destroy();
  const scansAtHangUp = scans;
  // The count sees the listing's Scans (they go through the wiring's client).
  expect(scansAtHangUp).toBeGreaterThan(0);
  await done.catch(() => undefined);

  expect(await listings.held(keyId, LISTINGS_IN_FLIGHT.free)).toBe(0);
  expect(await listings.held(STAGE_HOLDER, STAGE_CAP)).toBe(0);
  // At most the page already asked for, and far from the whole table.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(scans).toBeLessThanOrEqual(scansAtHangUp + 1);
  expect(scans).toBeLessThan(ORDERS.length / PAGE_SIZE);
});
