// What cancelOrder's middleware stack costs: the deployed handler against the same DynamoDB calls
// made directly (the limiter's update, then the order's) and against the repository call alone,
// each on a pending order of its own, interleaved call by call.

import { composeService } from '../../lib/root/service';
import { parseOrderId } from '../../lib/core/orders/order-id';
import { installLocalLambdaRuntime } from '../../tools/local/lambda-streaming';
import { lambdaContext } from '../../tools/local/proxy-event';
import { orderIdAt, proxyEvent, seededTables } from '../support/fixtures';
import { median, rotations } from '../support/stats';
import type { Suite } from '../suite';

export interface HandlerOverheadFigures {
  iterations: number;
  /** Median microseconds a call. */
  medianUs: { handler: number; repository: number; 'limiter + repository': number };
}

const VARIANTS = ['handler', 'repository', 'limiter + repository'] as const;
const WARMUP = 50;

export const handlerOverhead: Suite<HandlerOverheadFigures> = {
  name: 'handler overhead',
  async run({ quick, endpoint }) {
    const iterations = quick ? 300 : 1_500;
    const perVariant = iterations + WARMUP;
    const tables = await seededTables(endpoint, perVariant * VARIANTS.length);
    const { caller } = tables;
    installLocalLambdaRuntime();
    // Wired as deployed: the limiter on its no-retry client, the orders on the retrying one.
    const service = composeService({ endpoint, tables: tables.names });
    const { orders, limiter } = service.stores;
    const cancel = service.cancelOrder;
    const calls: Record<(typeof VARIANTS)[number], (id: string) => Promise<unknown>> = {
      handler: async (id) => {
        const result = await cancel(proxyEvent(caller, id), lambdaContext('cancel-order'));
        if (result.statusCode !== 204) throw new Error(`cancelOrder answered ${result.statusCode}`);
      },
      repository: (id) => orders.cancel(parseOrderId(id)),
      'limiter + repository': async (id) => {
        await limiter.admit(caller.keyId, caller.limits);
        await orders.cancel(parseOrderId(id));
      },
    };
    const samples = VARIANTS.map((): number[] => []);
    for (let i = 0; i < perVariant; i++) {
      for (const v of rotations(VARIANTS, i)) {
        const [k, started] = [VARIANTS.indexOf(v), performance.now()];
        await calls[v](orderIdAt(k * perVariant + i));
        if (i >= WARMUP) samples[k]?.push((performance.now() - started) * 1000);
      }
    }
    await tables.drop();
    const [handler = 0, repository = 0, both = 0] = samples.map(median);
    return { iterations, medianUs: { handler, repository, 'limiter + repository': both } };
  },
};
