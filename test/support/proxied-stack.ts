import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../lib/stores/key-service';
import { REQUEST_TIMEOUT_MS } from '../../lib/stores/dynamo';
import type { OrdersRepository } from '../../lib/stores/orders';
import type { Limits, PlanName } from '../../lib/contract/plans';
import { createLocalApp, type LocalAppOptions } from '../../tools/local/app';
import { createTestTables, type TestTables } from './dynamo';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { testClock, type TestClock } from './local-stack';
import { rawRequest, type RawResponse } from './raw-http';

export interface ProxiedStack {
  baseUrl: string;
  proxy: FaultProxy;
  tables: TestTables;
  clock: TestClock;
  /** The orders table read and written directly, past the proxy, whatever fault it injects. */
  orders: OrdersRepository;
  newKey(plan: PlanName, limits?: Limits): Promise<string>;
  /** `from`: the address the request comes from (127.0.0.1 when absent). */
  request(method: string, path: string, key?: string, from?: string): Promise<RawResponse>;
  close(): Promise<void>;
}

/**
 * A local stack whose DynamoDB client goes through a fault proxy to the embedded server. Setup and
 * checks use their own client straight to the server, so they work while the proxy misbehaves.
 */
export async function startProxiedStack(
  upstreamEndpoint: string,
  options: Pick<LocalAppOptions, 'addressLimit' | 'syncTiming'> = {},
): Promise<ProxiedStack> {
  const tables = await createTestTables(upstreamEndpoint);
  const proxy = await startFaultProxy(Number(new URL(upstreamEndpoint).port));
  const clock = testClock();
  // The deployed per-attempt timeout rather than the local stack's patient one: faults are timed as
  // deployed.
  const app = createLocalApp({
    endpoint: proxy.endpoint,
    tables: tables.names,
    now: clock.now,
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
    ...options,
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // Setup and checks: the root's stores on a wiring straight to the server.
  const direct = tables.stores();
  return {
    baseUrl,
    proxy,
    tables,
    clock,
    orders: direct.seeding,
    newKey: async (plan, limits) => (await createApiKey(direct.keys, { plan, ...(limits ? { limits } : {}) })).key,
    request: (method, path, key, from) =>
      rawRequest(baseUrl, method, path, {
        ...(key ? { headers: { Authorization: `Bearer ${key}` } } : {}),
        ...(from ? { localAddress: from } : {}),
      }),
    close: async () => {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await proxy.close();
      await tables.drop();
    },
  };
}
