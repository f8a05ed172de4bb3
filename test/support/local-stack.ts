import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../lib/api-keys';
import type { Limits, PlanName } from '../../lib/plans';
import { createLocalApp, type LocalAppOptions } from '../../infra/local/app';
import { createTestTables, type TestTables } from './dynamo';

export interface TestClock {
  now: () => number;
  set(ms: number): void;
  advance(ms: number): void;
}

/** A clock the tests move by hand: no sleeping, and windows fall where the test puts them. */
export function testClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)): TestClock {
  let current = start;
  return {
    now: () => current,
    set: (ms) => {
      current = ms;
    },
    advance: (ms) => {
      current += ms;
    },
  };
}

export interface LocalStack {
  baseUrl: string;
  tables: TestTables;
  app: ReturnType<typeof createLocalApp>;
  clock: TestClock;
  newKey(plan: PlanName, limits?: Limits): Promise<{ key: string; id: string }>;
  call(method: string, path: string, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/** The local gateway and handlers on fresh tables of the embedded server, on a free port. */
export async function startLocalStack(options: Partial<Omit<LocalAppOptions, 'endpoint' | 'tables' | 'now'>> = {}): Promise<LocalStack> {
  const tables = await createTestTables();
  const clock = testClock();
  const app = createLocalApp({ endpoint: tables.endpoint, tables: tables.names, now: clock.now, ...options });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    tables,
    app,
    clock,
    newKey: async (plan, limits) => {
      const { key, record } = await createApiKey(app.keys, { plan, ...(limits ? { limits } : {}) });
      return { key, id: record.id };
    },
    call: (method, path, headers = {}) => fetch(`${baseUrl}${path}`, { method, headers }),
    close: async () => {
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await tables.drop();
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Asserts the Error record on a response and returns it. */
export async function expectError(response: Response, status: number, code: string): Promise<{ code: string; message: string; status: number }> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { code: string; message: string; status: number };
  expect(Object.keys(body).sort()).toEqual(['code', 'message', 'status']);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe('string');
  expect(body.message.length).toBeGreaterThan(0);
  return body;
}
