// Cancels over HTTP, ships and imports through the admin command and the repository, interleaved
// by fast-check's scheduler and then run for real against the embedded server: every history is
// explained by the sequential model of decisions.md, and its invariants hold.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { INT64_MAX, ORDER_STATUSES, type OrderStatus } from '../../lib/contract/order';
import { adminRunner, testTarget } from '../support/admin-harness';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { linearize, type OrderEvent, type TableState, type TimedEvent } from '../support/order-history';
import { perform, type OperationTargets, type OrderOperation } from '../support/order-operations';

let stack: LocalStack;
let targets: OperationTargets;
let runs = 0;

beforeAll(async () => {
  stack = await startLocalStack();
  const { key } = await stack.newKey('enterprise', { perMinute: 1_000_000, perDay: 10_000_000 });
  const admin = adminRunner(() => testTarget(stack.tables));
  targets = {
    baseUrl: stack.baseUrl,
    key,
    admin,
    orders: stack.app.orders,
    dir: await mkdtemp(join(tmpdir(), 'interleavings-')),
  };
});
afterAll(async () => {
  await rm(targets.dir, { recursive: true, force: true });
  await stack.close();
});

/** Operations name one of two orders by slot; each run gives the slots fresh ids, one beyond 2^53. */
type Slot = 0 | 1;
type PlannedOperation =
  | { kind: 'cancel'; slot: Slot }
  | { kind: 'ship'; slot: Slot; via: 'admin' | 'repository' }
  | { kind: 'import'; orders: { slot: Slot; status: OrderStatus }[] };

const slot = fc.constantFrom<Slot>(0, 1);
const status = fc.constantFrom(...ORDER_STATUSES);
const operation: fc.Arbitrary<PlannedOperation> = fc.oneof(
  fc.record({ kind: fc.constant('cancel' as const), slot }),
  fc.record({
    kind: fc.constant('ship' as const),
    slot,
    via: fc.constantFrom('admin' as const, 'repository' as const),
  }),
  fc.record({
    kind: fc.constant('import' as const),
    orders: fc.uniqueArray(fc.record({ slot, status }), { minLength: 1, maxLength: 2, selector: (o) => o.slot }),
  }),
);
/** `withPrevious`: starts alongside the operation before it rather than after it has finished. */
const plan = fc.array(fc.record({ operation, withPrevious: fc.boolean() }), { minLength: 1, maxLength: 6 });
const initial = fc.constantFrom<OrderStatus | undefined>(
  undefined,
  'pending',
  'pending',
  'pending',
  'shipped',
  'cancelled',
);

function resolve(op: PlannedOperation, ids: readonly [string, string]): OrderOperation {
  if (op.kind === 'import')
    return { kind: 'import', orders: op.orders.map((o) => ({ id: ids[o.slot], status: o.status })) };
  return op.kind === 'cancel' ? { kind: 'cancel', id: ids[op.slot] } : { kind: 'ship', id: ids[op.slot], via: op.via };
}

function groups<T extends { withPrevious: boolean }>(steps: readonly T[]): T[][] {
  const out: T[][] = [];
  for (const s of steps) {
    const last = out.at(-1);
    if (s.withPrevious && last) last.push(s);
    else out.push([s]);
  }
  return out;
}

/** decisions.md, said directly: a shipped order is never cancelled, a cancelled one never ships, an import never overwrites. */
function invariantBreaches(start: TableState, events: readonly OrderEvent[], final: TableState): string[] {
  const breaches: string[] = [];
  for (const e of events) {
    const end = final.get(e.id);
    if (e.kind === 'cancel' && e.observed === 204 && end !== 'cancelled')
      breaches.push(`cancel of ${e.id} answered 204, order ends ${end}`);
    if (e.kind === 'ship' && (e.observed === 'shipped' || e.observed === 'already') && end !== 'shipped')
      breaches.push(`ship of ${e.id} succeeded, order ends ${end}`);
    if (e.kind === 'import' && start.has(e.id) && e.observed !== 'skipped') breaches.push(`import overwrote ${e.id}`);
  }
  for (const [id, was] of start) {
    if (was !== 'pending' && final.get(id) !== was) breaches.push(`${id} was ${was}, ends ${final.get(id)}`);
  }
  return breaches;
}

test('any interleaving of cancel, ship and import is explained by the model, and no rule of decisions.md breaks', async () => {
  await fc.assert(
    fc.asyncProperty(fc.scheduler(), fc.tuple(initial, initial), plan, async (s, starts, steps) => {
      const run = ++runs;
      const ids = [String(1_000_000 + run), String(INT64_MAX - BigInt(run))] as const;
      const start = new Map<string, OrderStatus>();
      for (const i of [0, 1] as const) {
        const was = starts[i];
        if (was === undefined) continue;
        await stack.app.orders.create({ id: ids[i], status: was });
        start.set(ids[i], was);
      }

      let tick = 0;
      const history: TimedEvent[] = [];
      for (const group of groups(steps)) {
        const running = group.map(({ operation: op }) =>
          s.schedule(Promise.resolve(op.kind)).then(async () => {
            const begun = ++tick;
            const events = await perform(targets, resolve(op, ids));
            const end = ++tick;
            for (const event of events) history.push({ event, start: begun, end });
          }),
        );
        await s.waitAll();
        await Promise.all(running);
      }

      const final = new Map<string, OrderStatus>();
      for (const id of ids) {
        const order = await stack.app.orders.get(id);
        if (order) final.set(id, order.status);
      }
      const events = history.map((h) => h.event);
      expect(invariantBreaches(start, events, final)).toEqual([]);
      const witness = linearize(start, history, final);
      if (!witness)
        throw new Error(
          `No sequential order explains ${JSON.stringify({ start: [...start], history, final: [...final] })}`,
        );
    }),
    { numRuns: 60 },
  );
}, 60_000);

describe('the checker refuses what breaks the rules', () => {
  const pending: TableState = new Map([['1', 'pending']]);
  const at = (event: OrderEvent, start: number, end: number): TimedEvent => ({ event, start, end });

  test('a cancel and a ship both succeeding on one pending order', () => {
    const history = [
      at({ kind: 'cancel', id: '1', observed: 204 }, 1, 3),
      at({ kind: 'ship', id: '1', observed: 'shipped' }, 2, 4),
    ];
    expect(linearize(pending, history, new Map([['1', 'shipped']]))).toBeUndefined();
    expect(linearize(pending, history, new Map([['1', 'cancelled']]))).toBeUndefined();
  });

  test('a lost update, and an import that overwrote', () => {
    expect(linearize(pending, [at({ kind: 'cancel', id: '1', observed: 204 }, 1, 2)], pending)).toBeUndefined();
    const imported = at({ kind: 'import', id: '1', status: 'shipped', observed: 'created' }, 1, 2);
    expect(linearize(pending, [imported], new Map([['1', 'shipped']]))).toBeUndefined();
  });

  test('an order that only real time allows: a 404 cancel that ended before the import began cannot follow it', () => {
    const cancel = at({ kind: 'cancel', id: '1', observed: 404 }, 1, 2);
    const imported = at({ kind: 'import', id: '1', status: 'pending', observed: 'created' }, 3, 4);
    expect(linearize(new Map(), [cancel, imported], pending)).toEqual([cancel.event, imported.event]);
    const late = at({ kind: 'cancel', id: '1', observed: 404 }, 5, 6);
    expect(linearize(new Map(), [imported, late], pending)).toBeUndefined();
  });
});
