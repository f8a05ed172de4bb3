// The load generator of bench/suites/load.ts, in a process of its own so it does not share the
// local stack's event loop: autocannon on one route (`list` or `cancel`, each cancel naming the
// next seeded pending order), then one JSON line with what it measured.

import { childArgs } from './env';
import autocannon from 'autocannon';
import { BASE_PATH } from '../../lib/contract/routes';
import { orderIdAt } from './fixtures';

const [url = '', key = '', route = '', duration = 0, connections = 0] = childArgs();
let next = 0;
const ordersPath = `${BASE_PATH}/store/orders`;
const result = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(duration),
  headers: { Authorization: `Bearer ${key}` },
  requests: [
    route === 'cancel'
      ? { method: 'DELETE', setupRequest: (request) => ({ ...request, path: `${ordersPath}/${orderIdAt(next++)}` }) }
      : { method: 'GET', path: ordersPath },
  ],
});
const statuses = Object.entries(result.statusCodeStats ?? {}).map(([status, s]) => [status, s.count ?? 0]);
const { requests, latency, errors, timeouts } = result;
const figures = { requestsPerS: requests.average, p50Ms: latency.p50, p99Ms: latency.p99, errors, timeouts };
process.stdout.write(`${JSON.stringify({ ...figures, statuses: Object.fromEntries(statuses) })}\n`);
