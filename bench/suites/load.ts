// The local stack as `npm start` runs it (gateway, handlers and embedded server in one process,
// here the bench's) under load from autocannon in a process of its own (bench/support/load-child.ts),
// one route after the other, with a key whose limits admit every request.

import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalApp } from '../../tools/local/app';
import { ADDRESS_LIMIT, WAF_RATE_RULE } from '../../lib/contract/address-limit';
import { runChild } from '../support/child';
import { childEnv } from '../support/env';
import { seededTables } from '../support/fixtures';
import type { Suite } from '../suite';

type Latency = { requestsPerS: number; p50Ms: number; p99Ms: number };
/** What bench/support/load-child.ts prints, and the route it loaded. */
type Route = Latency & { route: string; statuses: Partial<Record<string, number>>; errors: number; timeouts: number };
export type LoadFigures = { connections: number; durationS: number; routes: Route[] };

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'load-child.ts');
const CONNECTIONS = 10;

export const load: Suite<LoadFigures> = {
  name: 'local stack load',
  async run({ quick, endpoint }) {
    const [durationS, pending] = quick ? [3, 5_000] : [10, 20_000];
    const routes: Route[] = [];
    // Cancels first, and each on a table of its own: when autocannon stops it drops connections with requests in flight.
    for (const [name, orders, route] of [
      ['cancel', pending, `DELETE /store/orders/{id} (${pending} pending)`],
      ['list', 100, 'GET /store/orders (100 orders)'],
    ] as const) {
      const tables = await seededTables(endpoint, orders);
      // autocannon sends from one address at the stack's full speed, which the web ACL would cut
      // (ADDRESS_LIMIT): the load is that of the service behind it, so its limit is WAF's highest.
      const addressLimit = { ...ADDRESS_LIMIT, limit: WAF_RATE_RULE.maxLimit };
      const { server } = createLocalApp({ endpoint, tables: tables.names, addressLimit });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const args = [url, tables.key, name, String(durationS), String(CONNECTIONS)];
        const figures = await runChild<Omit<Route, 'route'>>(CHILD, args, childEnv({}), {
          nodeFlags: ['--import', 'tsx'],
        });
        routes.push({ route, ...figures });
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        await tables.drop();
      }
    }
    return { connections: CONNECTIONS, durationS, routes };
  },
};
