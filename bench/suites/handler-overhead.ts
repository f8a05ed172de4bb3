// What cancelOrder's middleware stack costs: the deployed handler against the repository call it
// wraps, alone and with the limiter, each on a pending order of its own, interleaved call by call.

import { lambdaContext } from '../../tools/local/proxy-event';
import { makeCancelOrderHandler } from '../../lib/orders/handlers';
import { parseOrderId } from '../../lib/orders/order-id';
import { RateLimiter } from '../../lib/limits/limiter';
import { orderIdAt, proxyEvent, seededTables } from '../support/fixtures';
import { median, n, rotations } from '../support/stats';
import type { Suite } from '../support/suite';

const VARIANTS = ['handler', 'repository', 'limiter + repository', 'limiter alone'] as const;
type Variant = (typeof VARIANTS)[number];
const WARMUP = 50;

export const handlerOverhead: Suite = {
  name: 'handler overhead',
  async run({ quick, endpoint }) {
    const iterations = quick ? 300 : 1_500;
    const perVariant = iterations + WARMUP;
    const tables = await seededTables(endpoint, perVariant * VARIANTS.length);
    const { orders, caller } = tables;
    const limiter = new RateLimiter(tables.doc, tables.names.rateLimits);
    const { limits } = caller;
    const handler = makeCancelOrderHandler({ orders, limiter });
    const cancelEvent = (orderId: string) => proxyEvent('DELETE', `/store/orders/${orderId}`, caller, orderId);
    const calls: Record<Variant, (orderId: string) => Promise<unknown>> = {
      handler: async (orderId) => {
        const result = await handler(cancelEvent(orderId), lambdaContext('cancel-order'));
        if (result.statusCode !== 204) throw new Error(`cancelOrder answered ${result.statusCode}`);
      },
      repository: (orderId) => orders.cancel(parseOrderId(orderId)),
      'limiter + repository': async (orderId) => {
        await limiter.admit(caller.keyId, limits);
        await orders.cancel(parseOrderId(orderId));
      },
      'limiter alone': () => limiter.admit(caller.keyId, limits),
    };
    const samples = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
    for (let i = 0; i < perVariant; i++) {
      for (const variant of rotations(VARIANTS, i)) {
        const started = performance.now();
        await calls[variant](orderIdAt(VARIANTS.indexOf(variant) * perVariant + i));
        if (i >= WARMUP) samples.get(variant)?.push((performance.now() - started) * 1000);
      }
    }
    await tables.drop();
    const us = Object.fromEntries(VARIANTS.map((v) => [v, median(samples.get(v) ?? [])])) as Record<Variant, number>;

    // The stack's own CPU, with nothing to wait for: repository and limiter answer at once.
    const stubbed = makeCancelOrderHandler({
      orders: { cancel: async () => undefined, scanPages: () => ({ async *[Symbol.asyncIterator]() {} }) },
      limiter: {
        now: Date.now,
        admit: async () => ({
          admitted: true,
          headers: { limit: limits.perMinute, remaining: limits.perMinute - 1, resetAt: 0 },
        }),
      },
    });
    const stackSamples: number[] = [];
    for (let i = 0; i < iterations * 2; i++) {
      const started = performance.now();
      await stubbed(cancelEvent(orderIdAt(i)), lambdaContext('cancel-order'));
      stackSamples.push((performance.now() - started) * 1000);
    }
    const stackOnlyUs = median(stackSamples.slice(WARMUP));

    const µs = (v: number) => `${n(v)} µs`;
    return {
      figures: { iterations, medianUs: us, stackOnlyUs },
      rows: [
        [
          'handler overhead',
          'cancelOrder handler',
          µs(us.handler),
          `limiter + repository ${µs(us['limiter + repository'])} (×${n(us.handler / us['limiter + repository'], 2)}, aim ≤ ×1.10)`,
        ],
        [
          'handler overhead',
          'cancelOrder handler',
          µs(us.handler),
          `bare repository call ${µs(us.repository)} (×${n(us.handler / us.repository, 2)}, aim ≤ ×2.2 with the limiter)`,
        ],
        [
          'handler overhead',
          'cancelOrder handler',
          µs(us.handler),
          `repository alone ${µs(us.repository)}; limiter alone ${µs(us['limiter alone'])}`,
        ],
        [
          'handler overhead',
          'cancelOrder stack, I/O stubbed',
          µs(stackOnlyUs),
          `${n((stackOnlyUs / us.repository) * 100, 1)}% of the repository call`,
        ],
      ],
    };
  },
};
