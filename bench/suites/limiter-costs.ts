// DynamoDB calls and write units per request, per route and outcome, with the limiter before (two
// counter items per key, parallel ADDs with give-backs) and after (one item per key and UTC day),
// in one run. The embedded server answers failed conditions as DynamoDB does (the item comes with
// the failure), so the counts are those of a deployed function. Exact counts per call sequence are
// asserted in test/integration/round-trips.test.ts; this prints the comparison.
import { randomUUID } from 'node:crypto';
import { lambdaContext } from '../../tools/local/proxy-event';
import { invokeStreamedToResponse } from '../../tools/local/invoke';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { ON_DYNAMODB } from '../../lib/aws/conditional';
import { createDocumentClient, createDynamoClient } from '../../lib/aws/dynamo';
import { RateLimiter } from '../../lib/limits/limiter';
import { makeCancelOrderHandler, makeListOrdersHandler, type OrdersHandlerDeps } from '../../lib/orders/handlers';
import { OrdersRepository } from '../../lib/orders/repository';
import {
  limiterDocumentClient,
  logCalls,
  returnItemOnConditionFailure,
  type LoggedCall,
} from '../../test/support/limiter-clients';
import { orderIdAt, proxyEvent, seededTables } from '../support/fixtures';
import type { Row, Suite } from '../support/suite';
import { TwoCounterLimiter } from '../support/two-counter-limiter';

type Variant = 'before' | 'after';
const VARIANTS: Variant[] = ['before', 'after'];
/** Every item the limiter and a cancel write is far below 1 KB: each write, applied or refused by its condition, is one write unit. */
const WRITES = new Set(['UpdateItem', 'PutItem', 'DeleteItem']);

interface Cost {
  calls: number;
  writeUnits: number;
  sequence: string;
}

export const limiterCosts: Suite = {
  name: 'limiter costs',
  async run({ endpoint }) {
    installLocalLambdaRuntime();
    const tables = await seededTables(endpoint, 20);
    const counters = limiterDocumentClient(endpoint);
    const doc = createDocumentClient(createDynamoClient({ endpoint }));
    const log = logCalls(counters, doc);
    returnItemOnConditionFailure(counters, endpoint);
    returnItemOnConditionFailure(doc, endpoint);
    let nowMs = Date.parse('2026-11-22T10:00:15.000Z');
    const clock = () => nowMs;
    const deps: Record<Variant, OrdersHandlerDeps> = {
      before: {
        limiter: new TwoCounterLimiter(counters, tables.names.rateLimits, clock),
        orders: new OrdersRepository(doc, tables.names.orders, clock),
      },
      after: {
        limiter: new RateLimiter(counters, tables.names.rateLimits, clock, ON_DYNAMODB),
        orders: new OrdersRepository(doc, tables.names.orders, clock, ON_DYNAMODB),
      },
    };
    const label = (table: string | undefined) =>
      Object.entries(tables.names).find(([, name]) => name === table)?.[0] ?? String(table);
    const cost = (calls: LoggedCall[]): Cost => ({
      calls: calls.length,
      writeUnits: calls.filter((c) => WRITES.has(c.operation)).length,
      sequence: calls.map((c) => `${c.operation}(${label(c.table)})`).join(', '),
    });
    let nextOrder = 0;
    const keyOf = (perMinute: number) => ({
      ...tables.caller,
      keyId: `key_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
      limits: { perMinute, perDay: 100_000 },
    });

    /** One request on a key whose minute has started, after `before` requests of its own. */
    const scenarios: { route: string; outcome: string; run(variant: Variant): Promise<number> }[] = [
      { route: 'cancelOrder', outcome: '204', run: (v) => cancel(v, orderIdAt(nextOrder++)) },
      { route: 'cancelOrder', outcome: '404 (no such order)', run: (v) => cancel(v, '999999') },
      { route: 'listOrders', outcome: '200', run: (v) => list(v) },
      {
        route: 'cancelOrder',
        outcome: '204, first of its minute',
        run: (v) => cancel(v, orderIdAt(nextOrder++), { minuteStarted: false }),
      },
      { route: 'cancelOrder', outcome: '429 RATE_LIMITED', run: (v) => cancel(v, '1', { perMinute: 1 }) },
    ];

    async function cancel(
      variant: Variant,
      orderId: string,
      key: { perMinute?: number; minuteStarted?: boolean } = {},
    ): Promise<number> {
      const caller = keyOf(key.perMinute ?? 1000);
      if (key.minuteStarted !== false) await deps[variant].limiter.admit(caller.keyId, caller.limits);
      log.take();
      const result = await makeCancelOrderHandler(deps[variant])(
        proxyEvent('DELETE', `/store/orders/${orderId}`, caller, orderId),
        lambdaContext('cancel-order'),
      );
      return result.statusCode;
    }

    async function list(variant: Variant): Promise<number> {
      const caller = keyOf(1000);
      await deps[variant].limiter.admit(caller.keyId, caller.limits);
      log.take();
      const handler = makeListOrdersHandler({ ...deps[variant], scan: { segments: 1 } });
      return (
        await invokeStreamedToResponse(
          handler,
          proxyEvent('GET', '/store/orders', caller),
          lambdaContext('list-orders'),
        )
      ).statusCode;
    }

    const rows: Row[] = [];
    const figures: Record<string, Record<Variant, Cost & { status: number }>> = {};
    for (const scenario of scenarios) {
      const measured = {} as Record<Variant, Cost & { status: number }>;
      for (const variant of VARIANTS) {
        nowMs += 60_000;
        const status = await scenario.run(variant);
        measured[variant] = { status, ...cost(log.take()) };
      }
      const name = `${scenario.route} ${scenario.outcome}`;
      figures[name] = measured;
      const { before, after } = measured;
      rows.push([
        'limiter costs',
        name,
        `${after.calls} calls, ${after.writeUnits} write units: ${after.sequence}`,
        `before ${before.calls} calls, ${before.writeUnits} write units: ${before.sequence}`,
      ]);
    }
    counters.destroy();
    doc.destroy();
    await tables.drop();
    return { rows, figures };
  },
};
