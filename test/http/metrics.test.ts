import { captureConsole, type ConsoleCapture } from '../support/console-logs';
import { generateApiKey } from '../../lib/core/access/key-format';
import type { APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { makeAuthorizerHandler } from '../../lib/edge/authorizer-handler';
import { RELEASE_CHECK_FLAG } from '../../lib/edge/authorizer';
import { RELEASE_CHECKS } from '../../infra/release-hook/checks';
import { lambdaContext } from '../../tools/local/proxy-event';
import { BUSINESS_METRICS, LOCAL_STAGE, MEASURED_INDEXES, METRICS_NAMESPACE } from '../../lib/edge/metrics';
import { INDEX_CANARY } from '../../lib/contract/index-canary';
import { SERVICE_NAME } from '../../lib/commons/service';
import { bearer, startLocalStack, type LocalStack } from '../support/local-stack';
import { request } from 'node:http';
import { failingAfterPages, stackListingFrom } from '../support/list-route';
import { BAN } from '../../lib/contract/plans';

// Every business metric reaches the local log as an EMF line, through the local stack on the
// embedded server. Powertools writes them through the global console in dev mode, once enabled.
process.env.POWERTOOLS_METRICS_DISABLED = 'false';

interface EmfRecord {
  _aws: {
    CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[];
  };
  [field: string]: unknown;
}

let stack: LocalStack;
let output: ConsoleCapture;

beforeAll(async () => {
  stack = await startLocalStack();
});
afterAll(() => stack.close());
beforeEach(() => {
  output = captureConsole();
});
afterEach(() => output.restore());

function emf(): EmfRecord[] {
  return output.entries().filter((entry): entry is EmfRecord => typeof entry._aws === 'object');
}

/** The EMF records of one metric, each as its dimensions and value. */
function recorded(metric: keyof typeof BUSINESS_METRICS): Record<string, unknown>[] {
  const { name, unit } = BUSINESS_METRICS[metric];
  return emf()
    .filter((record) => record._aws.CloudWatchMetrics.some((d) => d.Metrics.some((m) => m.Name === name)))
    .map((record) => {
      const [directive] = record._aws.CloudWatchMetrics;
      expect(directive?.Namespace).toBe(METRICS_NAMESPACE);
      expect(directive?.Metrics).toContainEqual({ Name: name, Unit: unit });
      expect(directive?.Dimensions).toHaveLength(1);
      const dimensions = directive?.Dimensions[0] ?? [];
      expect(dimensions).toEqual(['service', 'stage', ...Object.keys(BUSINESS_METRICS[metric].dimensions)]);
      expect(record).toMatchObject({ service: SERVICE_NAME, stage: LOCAL_STAGE });
      return { ...Object.fromEntries(dimensions.slice(2).map((d) => [d, record[d]])), value: record[name] };
    });
}

test('cancels are counted by outcome: 204, 404 and 409, not bad ids', async () => {
  const { key } = await stack.newKey('pro');
  await stack.app.orders.create({ id: '71', petId: '1', quantity: 1, status: 'pending' });
  await stack.app.orders.create({ id: '72', petId: '1', quantity: 1, status: 'shipped', complete: true });
  for (const id of ['71', '70', '72', 'abc']) await stack.call('DELETE', `/v1/store/orders/${id}`, bearer(key));
  expect(recorded('cancels')).toEqual([
    { outcome: '204', value: 1 },
    { outcome: '404', value: 1 },
    { outcome: '409', value: 1 },
  ]);
});

test('refusals are counted by reason and plan, and a ban once when it starts', async () => {
  const minute = await stack.newKey('enterprise', { perMinute: 1, perDay: 100 });
  const day = await stack.newKey('enterprise', { perMinute: 5, perDay: 1 });
  // The refusals a minute may hold without a ban at 1 a minute (lib/contract/plans.ts).
  const allowed = Math.floor(1 * BAN.rejectedPerMinuteFactor);
  const statuses: number[] = [];
  // Admitted; refused up to the threshold; refused past it (the ban starts); refused past it again
  // in the same second (the ban is already written); a second later, refused by the ban itself.
  for (let i = 0; i < allowed + 3; i++) {
    statuses.push((await stack.call('GET', '/v1/store/orders', bearer(minute.key))).status);
  }
  stack.clock.advance(2_000);
  statuses.push((await stack.call('GET', '/v1/store/orders', bearer(minute.key))).status);
  for (let i = 0; i < 2; i++) statuses.push((await stack.call('GET', '/v1/store/orders', bearer(day.key))).status);
  expect(statuses).toEqual([200, ...Array<number>(allowed + 3).fill(429), 200, 429]);

  const banned = { reason: 'KEY_TEMPORARILY_BANNED', plan: 'enterprise', value: 1 };
  expect(recorded('refusals')).toEqual([
    ...Array.from({ length: allowed }, () => ({ reason: 'RATE_LIMITED', plan: 'enterprise', value: 1 })),
    banned,
    banned,
    banned,
    { reason: 'QUOTA_EXCEEDED', plan: 'enterprise', value: 1 },
  ]);
  expect(recorded('bans')).toEqual([{ plan: 'enterprise', value: 1 }]);
});

test('each complete listing records its orders and bytes', async () => {
  const { key } = await stack.newKey('pro');
  const response = await stack.call('GET', '/v1/store/orders', bearer(key));
  const body = await response.text();
  const orders = (JSON.parse(body) as unknown[]).length;
  expect(orders).toBeGreaterThan(0);
  const listing = emf().filter((record) => BUSINESS_METRICS.listedOrders.name in record);
  expect(listing).toHaveLength(1);
  expect(listing[0]).toMatchObject({
    [BUSINESS_METRICS.listedOrders.name]: orders,
    [BUSINESS_METRICS.listedBytes.name]: Buffer.byteLength(body),
  });
  expect(recorded('listedOrders')).toEqual([{ value: orders }]);
  expect(recorded('listedBytes')).toEqual([{ value: Buffer.byteLength(body) }]);
  // fetch asks for a compressed body (and decompresses it): the bytes sent are the compressed ones.
  expect(recorded('listingResponseBytes')).toEqual([{ value: expect.any(Number) }]);
  const [sent] = recorded('listingResponseBytes');
  expect(sent?.value).toBeGreaterThan(0);
  expect(sent?.value).toBeLessThan(Buffer.byteLength(body));
});

test('a listing cut short records the bytes it sent, and no complete listing', async () => {
  const { orders: real, seeding } = stack.tables.stores();
  await seeding.putMany(['81', '82', '83', '84', '85'].map((id) => ({ id, status: 'pending' as const })));
  const broken = await stackListingFrom(stack, failingAfterPages(real, 1, 2), '/broken');
  try {
    const { key } = await broken.newKey('pro');
    const sent = await new Promise<number>((resolve) => {
      const req = request(`${broken.baseUrl}/v1/broken`, { headers: bearer(key) }, (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('close', () => resolve(bytes));
      });
      req.on('error', () => undefined);
      req.end();
    });
    expect(sent).toBeGreaterThan(1);
    expect(recorded('listingResponseBytes')).toEqual([{ value: sent }]);
    expect(recorded('listedOrders')).toEqual([]);
  } finally {
    await broken.close();
  }
});

test('authorizer refusals are counted by cause, and never carry the key', async () => {
  const revoked = await stack.newKey('free');
  await stack.app.keys.revoke(revoked.id, new Date());
  const genuine = await stack.newKey('free');
  const forged = `${genuine.key.slice(0, -1)}${genuine.key.endsWith('A') ? 'B' : 'A'}`;
  const unknown = generateApiKey();
  for (const key of [forged, unknown, revoked.key]) {
    expect((await stack.call('GET', '/v1/store/orders', bearer(key))).status).toBe(401);
  }
  // API Gateway (and the local gateway) refuse a missing header before the authorizer runs.
  const authorizer = makeAuthorizerHandler({ keys: stack.app.keys });
  await expect(
    authorizer(
      { type: 'TOKEN', authorizationToken: 'Basic abc', methodArn: 'arn:aws:execute-api:r:a:api/v1/GET/x' },
      lambdaContext('authorizer'),
    ),
  ).rejects.toThrow('Unauthorized');

  expect(recorded('authorizerRefusals')).toEqual([
    { cause: 'malformed', value: 1 },
    { cause: 'unknown', value: 1 },
    { cause: 'revoked', value: 1 },
    { cause: 'missing', value: 1 },
  ]);
  const written = output.lines.join('\n');
  for (const key of [forged, unknown, revoked.key]) expect(written).not.toContain(key.slice(4, 24));
});

test("the sync watch publishes each stream batch's changes, worst lateness, re-stamps and early stamps", async () => {
  // A stack of its own whose orders table has a stream, read by the sync watch on the stack's clock.
  const watched = await startLocalStack({ dynamo: { stream: {} } });
  try {
    const watch = watched.app.streamMappings['sync-watch'];
    const writer = (offsetMs: number) => watched.tables.stores({ now: () => watched.clock.now() + offsetMs }).orders;
    // On time, ten minutes late (a slow clock), and ten minutes ahead (a fast one), in one batch.
    await watched.app.orders.create({ id: '1', status: 'pending' });
    await writer(-600_000).create({ id: '2', status: 'pending' });
    await writer(600_000).create({ id: '3', status: 'pending' });
    // The three are due together (a shard's batch each); the re-stamp's own record comes later.
    watched.clock.set(watch?.nextDueAt() ?? NaN);
    await watch?.deliverDue();
    const sum = (metric: keyof typeof BUSINESS_METRICS) => recorded(metric).reduce((a, r) => a + Number(r.value), 0);
    const batch = {
      changesWatched: sum('changesWatched'),
      changesRestamped: sum('changesRestamped'),
      changesStampedAhead: sum('changesStampedAhead'),
      changeLateness: Math.max(...recorded('changeLateness').map((r) => Number(r.value))),
    };
    expect(batch).toMatchObject({ changesWatched: 3, changesRestamped: 1, changesStampedAhead: 1 });
    // The slow writer's change landed ten minutes after its stamp, to the second (the worst of the batches).
    expect(batch.changeLateness).toBeGreaterThanOrEqual(600_000);
    expect(batch.changeLateness).toBeLessThan(601_000);
  } finally {
    await watched.close();
  }
});

test("the index-lag canary publishes each index's lag, a line each run, and the sync watch what its sweeps re-stamped", async () => {
  // A stack of its own whose indexes show every write 2 s after it, the canary on its virtual clock.
  const lagging = await startLocalStack({
    dynamo: { indexLag: { maxMs: 2_000, random: () => 1 }, stream: {} },
    indexCanary: true,
  });
  try {
    const canary = lagging.app.indexCanary;
    for (let due = canary?.nextDueAt(); due !== undefined && due <= lagging.clock.now() + 5_000;) {
      lagging.clock.set(Math.max(due, lagging.clock.now()));
      await canary?.runDue();
      due = canary?.nextDueAt();
    }
    expect(canary?.runs).toBe(1);
    const lags = recorded('indexLag');
    expect(lags.map((r) => r.index).sort()).toEqual([...MEASURED_INDEXES].sort());
    for (const { value } of lags) {
      expect(Number(value)).toBeGreaterThanOrEqual(2_000);
      expect(Number(value)).toBeLessThan(2_000 + INDEX_CANARY.pollMs);
    }
    // The sentinel's records are no order of the stream: the watch judges none, sweeps nothing.
    const watch = lagging.app.streamMappings['sync-watch'];
    lagging.clock.set(watch?.nextDueAt() ?? NaN);
    await watch?.deliverDue();
    expect(recorded('changesWatched').every((r) => r.value === 0)).toBe(true);
    expect(recorded('indexLagRestamps').every((r) => r.value === 0)).toBe(true);
    expect(recorded('indexLagRestamps').length).toBeGreaterThan(0);
  } finally {
    await lagging.close();
  }
});

test("the release hook's checks count in no metric: its random key's refusal is not a caller's", async () => {
  const authorizer = makeAuthorizerHandler({ keys: stack.app.keys });
  const [refused] = RELEASE_CHECKS.authorizer;
  const { event } = (await refused?.prepare({ canaryKey: () => Promise.reject(new Error('not asked')) })) ?? {};
  const judge = (e: unknown) => authorizer(e as APIGatewayTokenAuthorizerEvent, lambdaContext('authorizer'));
  await expect(judge(event)).rejects.toThrow('Unauthorized');
  expect(recorded('authorizerRefusals')).toEqual([]);
  // The same key as API Gateway sends it, without the hook's mark, is counted.
  await expect(judge({ ...(event as object), [RELEASE_CHECK_FLAG]: undefined })).rejects.toThrow('Unauthorized');
  expect(recorded('authorizerRefusals')).toEqual([{ cause: 'unknown', value: 1 }]);
});
