// Every writer's attempts are cut at the one declared per-attempt timeout (the wiring's, from
// lib/stores/dynamo.ts; lib/contract/sync.ts settleMs counts the same one), on the injected timers,
// tools' writers included: the stores as the composition root makes them for a wiring on a virtual
// clock, against an embedded server that holds every write it gets and answers none. Each held
// write must be given up by its client within the declared timeout of the clock from when it was
// sent; a writer cut only by the SDK's own timeout (real time) leaves the virtual clock nothing to
// run, and the case fails. The sync watch's re-stamps, which answer no request, end within the
// watch's own invocation.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { FinalizeHandlerArguments } from '@smithy/types';
import type { DynamoDBRecord } from 'aws-lambda';
import { DEADLINE_MARGIN_MS } from '../../lib/commons/deadline';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { FUNCTIONS } from '../../lib/contract/deployment';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { syncWatchHandler } from '../../lib/root/handlers';
import type { Stores } from '../../lib/root/stores';
import { counterClient, documentClient, landingMsOf, type Wiring } from '../../lib/root/wiring';
import { isDependencyFailure } from '../../lib/stores/dependency-failure';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import type { HeldWrite } from '../../tools/local/embedded-dynamo';
import { lambdaContext } from '../../tools/local/proxy-event';
import { startLaggingTables, type LaggingTables } from '../support/lagging-dynamo';
import { VirtualTime } from '../support/virtual-time';

const START = Date.parse('2026-11-22T12:00:00.000Z');
const time = new VirtualTime(START);

/** A call of the stores' clients: when it was sent (after signing) and when it ended, virtual epoch ms. */
interface Call {
  body: string;
  sentAt: number;
  endedAt?: number;
}

let tables: LaggingTables;
let wiring: Wiring;
let stores: Stores;
let armed = false;
/** The bodies of the writes the server holds. */
let held: string[] = [];
let calls: Call[] = [];
/** The orders table's stream records, by order id: the seeded orders landed a minute after their stamps. */
const streamed = new Map<string, DynamoDBRecord>();

beforeAll(async () => {
  tables = await startLaggingTables({
    holdWrites: (write: HeldWrite) => {
      if (!armed) return undefined;
      held.push(write.body);
      return new Promise<void>(() => undefined);
    },
    stream: { now: time.now },
  });
  tables.dynamo.stream?.subscribe(tables.names.orders, ({ record }) => {
    const id = record.dynamodb?.Keys?.['id']?.N;
    if (id !== undefined) streamed.set(id, record);
  });
  ({ wiring, ...stores } = tables.stores({
    now: time.now,
    timers: time.asTimers,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  }));
  // Both of the wiring's clients: each call from its send to its answer or its cut.
  for (const client of [documentClient(wiring), counterClient(wiring)]) {
    client.middlewareStack.add(
      (next) => async (args: FinalizeHandlerArguments<object>) => {
        const { body } = args.request as { body?: unknown };
        const text = body instanceof Uint8Array ? new TextDecoder().decode(body) : String(body);
        const call: Call = { body: text, sentAt: time.now() };
        calls.push(call);
        try {
          return await next(args);
        } finally {
          call.endedAt = time.now();
        }
      },
      { step: 'deserialize', name: 'writerTimeoutsUnderWay' },
    );
  }
  await stores.orders.putMany([
    { id: '1', status: 'pending', updatedAt: new Date(START - 60_000).toISOString() },
    { id: '2', status: 'pending', updatedAt: new Date(START - 60_000).toISOString() },
    { id: '6', status: 'pending', updatedAt: new Date(START - 60_000).toISOString() },
  ]);
  // An order from before v2: no updatedAt, for the backfill.
  await tables.doc.send(new PutCommand({ TableName: tables.names.orders, Item: { id: 3n, status: 'pending' } }));
});
afterAll(() => tables.close());

const keyId = 'k-writer-timeouts';
const WRITERS: [string, () => Promise<unknown>][] = [
  ['a cancel (the API)', () => stores.orders.cancel('1')],
  ['a ship (admin orders ship)', () => stores.orders.ship('2')],
  ['a create (admin orders import)', () => stores.orders.create({ id: '4', status: 'pending' })],
  ['a backfill stamp (admin orders backfill-updated-at)', () => stores.orders.stampUpdatedAt('3', 'pending')],
  ['a seeding batch (putMany: demo data, bench, tests)', () => stores.orders.putMany([{ id: '5', status: 'pending' }])],
  ["the limiter's admission (every request)", () => stores.limiter.admit(keyId, PLAN_LIMITS.free)],
  [
    "the limiter's revocation marks (admin keys revoke)",
    () => stores.limiter.markRevoked(keyId, START, AUTHORIZER_CACHE_TTL_SECONDS),
  ],
  ["a listing's lease (GET /v1/store/orders)", () => stores.listings.acquire(keyId, 1)],
  [
    "the sync watch's re-stamp",
    () => stores.restamps.restamp({ id: '6', status: 'pending', updatedAt: new Date(START - 60_000).toISOString() }),
  ],
];

/** Runs `write` with the server holding every write; what it came to, or its failure. */
async function underHeldWrites<T>(write: () => Promise<T>): Promise<{ result?: T; failure?: unknown }> {
  held = [];
  calls = [];
  armed = true;
  const outcome: { result?: T; failure?: unknown } = {};
  try {
    await time.run(
      write().then(
        (result) => void (outcome.result = result),
        (error: unknown) => void (outcome.failure = error),
      ),
      // Real I/O: a call sent but not yet at the server's hold (or its reply not yet read).
      { busy: () => calls.some((call) => call.endedAt === undefined && !held.includes(call.body)) },
    );
  } finally {
    armed = false;
  }
  return outcome;
}

test.each(WRITERS)(
  '%s: every attempt cut at the declared timeout on the injected clock, then a failure',
  async (_, write) => {
    const { failure } = await underHeldWrites(write);
    expect(isDependencyFailure(failure)).toBe(true);
    const heldCalls = calls.filter((call) => held.includes(call.body));
    expect(heldCalls.length).toBeGreaterThan(0);
    for (const call of heldCalls)
      expect((call.endedAt ?? Infinity) - call.sentAt).toBeLessThanOrEqual(REQUEST_TIMEOUT_MS);
  },
);

test("the sync watch's re-stamps end within its invocation: none is sent or left under way after the watch gives up on its batch, whose record it names before Lambda's timeout", async () => {
  const late = streamed.get('6');
  if (!late?.dynamodb?.SequenceNumber) throw new Error('no stream record of order 6');
  // An invocation with 8 s left: the writes must end the landing margin before its answer, which
  // comes DEADLINE_MARGIN_MS before the timeout; the attempts alone (3 of 4 s) would run for 12 s.
  const startedAt = time.now();
  const settings = { ...FUNCTIONS['sync-watch'], timeoutSeconds: 8 };
  const answerBy = startedAt + settings.timeoutSeconds * 1000 - DEADLINE_MARGIN_MS;
  const writesEndBy = answerBy - landingMsOf(wiring);
  const context = lambdaContext('sync-watch', { settings, now: time.now });
  let answeredAt = NaN;
  const { result } = await underHeldWrites(() =>
    syncWatchHandler(wiring)({ Records: [late] }, context).finally(() => (answeredAt = time.now())),
  );
  expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: late.dynamodb.SequenceNumber }] });
  const heldCalls = calls.filter((call) => held.includes(call.body));
  expect(heldCalls.length).toBeGreaterThan(0);
  for (const call of calls) {
    expect(call.sentAt).toBeLessThan(writesEndBy);
    expect(call.endedAt ?? Infinity).toBeLessThanOrEqual(writesEndBy);
  }
  // Answered once the last unanswered re-stamp may have landed, and before Lambda would stop it.
  expect(answeredAt).toBeGreaterThanOrEqual(
    Math.min(answerBy, Math.max(...calls.map((c) => c.endedAt ?? 0)) + landingMsOf(wiring)),
  );
  expect(answeredAt).toBeLessThanOrEqual(answerBy);
});
