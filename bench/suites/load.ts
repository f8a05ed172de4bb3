// The local stack under autocannon on 127.0.0.1, one route after the other. The stack runs in its
// own process (bench/support/load-stack.ts), so the load generator does not share its event loop.

import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { BASE_PATH } from '../../lib/contract/routes';
import { orderIdAt } from '../support/fixtures';
import type { LoadStack } from '../support/load-stack';
import { n } from '../support/stats';
import type { Suite } from '../support/suite';

const STACK = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'support', 'load-stack.ts');
const CONNECTIONS = 10;

function startStack(cancelOrders: number): Promise<{ child: ChildProcess; stack: LoadStack; stderr: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', STACK, String(cancelOrders)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the load stack exited early (${code}): ${err.slice(0, 500)}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n'))
        resolve({ child, stack: JSON.parse(out.split('\n')[0] ?? '') as LoadStack, stderr: () => err });
    });
  });
}

export const load: Suite = {
  name: 'local stack load',
  async run({ quick }) {
    const duration = quick ? 3 : 10;
    const { child, stack, stderr } = await startStack(quick ? 5_000 : 20_000);
    try {
      let next = 0;
      // Each cancel names the next seeded pending order, so 404s show only if the run outpaces the seed.
      const cancel = await autocannon({
        url: stack.cancelUrl,
        connections: CONNECTIONS,
        duration,
        headers: { Authorization: `Bearer ${stack.cancelKey}` },
        requests: [
          {
            method: 'DELETE',
            setupRequest: (request) => ({ ...request, path: `${BASE_PATH}/store/orders/${orderIdAt(next++)}` }),
          },
        ],
      });
      // Last: when autocannon stops it drops connections with requests in flight.
      const list = await autocannon({
        url: `${stack.listUrl}${BASE_PATH}/store/orders`,
        connections: CONNECTIONS,
        duration,
        headers: { Authorization: `Bearer ${stack.listKey}` },
      });
      await new Promise((resolve) => setTimeout(resolve, 500)); // lets a crash on those dropped connections surface
      const crashed =
        child.exitCode !== null && child.exitCode !== 0
          ? (/Error: .*/.exec(stderr())?.[0] ?? `exit ${child.exitCode}`)
          : undefined;
      const routes = [
        { route: `GET /store/orders (${stack.listOrders} orders)`, result: list },
        { route: `DELETE /store/orders/{id} (${stack.cancelOrders} pending)`, result: cancel },
      ].map(({ route, result }) => ({
        route,
        requestsPerS: result.requests.average,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        statuses: Object.fromEntries(
          Object.entries(result.statusCodeStats ?? {}).map(([status, s]) => [status, s.count ?? 0]),
        ),
        errors: result.errors,
        timeouts: result.timeouts,
      }));
      return {
        figures: { connections: CONNECTIONS, durationS: duration, routes, crashed },
        rows: routes.map((r) => [
          'local stack load',
          `${r.route}, ${CONNECTIONS} conn × ${duration} s`,
          `${n(r.requestsPerS)} req/s, p50 ${n(r.p50Ms)} ms, p99 ${n(r.p99Ms)} ms`,
          `${
            Object.entries(r.statuses)
              .map(([s, c]) => `${s}×${c}`)
              .join(' ') || 'no responses'
          }; ${r.errors} errors, ${r.timeouts} timeouts${crashed ? `; stack died: ${crashed}` : ''}`,
        ]),
      };
    } finally {
      child.kill('SIGTERM');
    }
  },
};
