import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon, { type AutocannonResult } from 'autocannon';
import { BASE_PATH } from '../lib/contract/routes';
import { orderIdAt } from './fixtures';
import type { LoadStack } from './stack-server';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export interface LoadFigures {
  route: string;
  connections: number;
  durationS: number;
  requestsPerS: number;
  p50Ms: number;
  p99Ms: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
}

interface RunningStack {
  child: ChildProcess;
  stack: LoadStack;
  /** What the stack process wrote to stderr: a crash's first lines end up in the notes. */
  stderr: () => string;
}

function startStack(cancelOrders: number): Promise<RunningStack> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, 'stack-server.ts'), String(cancelOrders)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    let out = '';
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the load stack exited early (${code})`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line) resolve({ child, stack: JSON.parse(line) as LoadStack, stderr: () => err });
    });
  });
}

function figures(route: string, connections: number, durationS: number, result: AutocannonResult): LoadFigures {
  return {
    route,
    connections,
    durationS,
    requestsPerS: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCounts: Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, { count }]) => [status, count])),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

/**
 * Both routes of the local stack under autocannon on 127.0.0.1, one after the other. Each cancel
 * names the next seeded pending order, so the mix shows 404s only if the run outpaces the seed.
 */
export async function measureLoad(connections: number, durationS: number, cancelOrders: number): Promise<{ routes: LoadFigures[]; stackCrash?: string }> {
  const { child, stack, stderr } = await startStack(cancelOrders);
  try {
    let next = 0;
    const cancelResult = await autocannon({
      url: stack.cancelUrl,
      connections,
      duration: durationS,
      headers: { Authorization: `Bearer ${stack.cancelKey}` },
      requests: [{ method: 'DELETE', setupRequest: (request) => ({ ...request, path: `${BASE_PATH}/store/orders/${orderIdAt(next++)}` }) }],
    });
    // Last: when autocannon stops it drops connections with requests in flight, and the local
    // gateway does not always survive that on a streamed route (see the notes).
    const listResult = await autocannon({
      url: `${stack.listUrl}${BASE_PATH}/store/orders`,
      connections,
      duration: durationS,
      headers: { Authorization: `Bearer ${stack.listKey}` },
    });
    const routes = [
      figures(`GET /store/orders (${stack.listOrders} orders)`, connections, durationS, listResult),
      figures(`DELETE /store/orders/{id} (${stack.cancelOrders} pending)`, connections, durationS, cancelResult),
    ];
    // Give a crash caused by the dropped connections time to surface.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const crash = child.exitCode !== null && child.exitCode !== 0 ? /Error: .*/.exec(stderr())?.[0] ?? `exit ${child.exitCode}` : undefined;
    return crash ? { routes, stackCrash: crash } : { routes };
  } finally {
    child.removeAllListeners('exit');
    child.kill('SIGTERM');
  }
}
