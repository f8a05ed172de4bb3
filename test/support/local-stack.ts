import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../lib/stores/key-service';
import type { Limits, PlanName } from '../../lib/contract/plans';
import { buildOpenApiDocument, type JsonObject } from '../../lib/contract/openapi/document';
import { OPERATION_CONTRACTS } from '../../lib/contract/operations';
import type { OperationContract } from '../../lib/contract/operation-contract';
import { basePathOf, ROUTES, V2_BASE_PATH } from '../../lib/contract/routes';
import { buildV2OpenApiDocument } from '../../lib/contract/openapi/v2';
import { createLocalApp, type LocalAppOptions } from '../../tools/local/app';
import { contractValidator } from './contract';
import { createTestTables, type TestTables } from './dynamo';
import { startLaggingTables, type LagOptions } from './lagging-dynamo';

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

/**
 * A clock that runs at the machine's pace from `start` and that a test can still move: the time of
 * a world a child process shares in real time (the admin command, reading AWS's time from the
 * private server's replies), with no waiting when the test moves it on.
 */
export function flowingClock(start = Date.now()): TestClock {
  let origin = start - performance.now();
  return {
    now: () => Math.floor(origin + performance.now()),
    set: (ms) => {
      origin = ms - performance.now();
    },
    advance: (ms) => {
      origin += ms;
    },
  };
}

export interface LocalStack {
  baseUrl: string;
  tables: TestTables;
  app: ReturnType<typeof createLocalApp>;
  clock: TestClock;
  newKey(plan: PlanName, limits?: Limits): Promise<{ key: string; id: string }>;
  /** Every response it returns has been checked against `openapi` (public routes excepted). */
  call(method: string, path: string, headers?: Record<string, string>, body?: string): Promise<Response>;
  /** `call` as a `fetch` (for the typed client): a URL under baseUrl, its method, headers and body. */
  fetch: typeof fetch;
  close(): Promise<void>;
  /** Makes every index change the private server still holds back visible (none on the shared server). */
  settleIndexes(): Promise<void>;
  /** The private server's index lag of the writes from now on (it must have been started with one). */
  setIndexLagMs(maxMs: number): void;
  /** The OpenAPI document of this stack: ROUTES plus any extra routes. */
  openapi: JsonObject;
}

export interface LocalStackOptions extends Partial<Omit<LocalAppOptions, 'endpoint' | 'tables' | 'now'>> {
  /**
   * What the extra routes answer, by operationId. An extra route without one is documented with
   * only the answers every route has (401, 429, 500, 503).
   */
  contracts?: Record<string, OperationContract>;
  /**
   * Run on a private embedded server in this worker, as late as DynamoDB where asked (index lag,
   * held writes), instead of the shared prompt one. The index lag runs on the stack's clock unless
   * it brings its own; so does the change stream, whose consumers (the sync watch) the app then runs,
   * their batches sent by the test (app.streamMappings, deliverDue).
   */
  dynamo?: LagOptions;
  /**
   * The stack's clock, a virtual one (testClock) by default. A private server's replies (`dynamo`)
   * carry a given clock's time in their `Date` header, as DynamoDB's carry AWS's.
   */
  clock?: TestClock;
}

function stackDocument(options: LocalStackOptions): JsonObject {
  const extras = (options.extraRoutes ?? []).map((extra) => extra.route);
  const contracts: Record<string, OperationContract> = { ...OPERATION_CONTRACTS };
  for (const route of extras) contracts[route.operationId] = options.contracts?.[route.operationId] ?? { errors: [] };
  return buildOpenApiDocument([...ROUTES, ...extras], contracts);
}

/**
 * fetch, with the response checked against the contract before the test sees it: a status,
 * header or field the document does not give fails the test that received it.
 */
function contractCheckedFetch(baseUrl: string, openapi: JsonObject, publicPaths: Set<string>) {
  const v1 = contractValidator(openapi);
  const v2 = contractValidator(buildV2OpenApiDocument(), V2_BASE_PATH);
  return async (
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Response> => {
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    const pathname = new URL(path, baseUrl).pathname;
    if (publicPaths.has(`${method} ${pathname}`)) return response;
    // Each version's answers are checked against its own document.
    const validate = pathname.startsWith(`${V2_BASE_PATH}/`) ? v2 : v1;
    const text = await response.text();
    const problems = validate({ method, url: path, status: response.status, headers: response.headers, body: text });
    if (problems.length) throw new Error(`Response breaks the OpenAPI contract:\n${problems.join('\n')}`);
    return new Response(text === '' ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/** The local gateway and handlers on fresh tables of the embedded server, on a free port. */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  // Contracts describe the extra routes to the validator; the app itself has no use for them.
  const { contracts: _contracts, dynamo, clock = testClock(), ...appOptions } = options;
  const lagging =
    dynamo &&
    (await startLaggingTables({
      ...(options.clock ? { clock: clock.now } : {}),
      ...dynamo,
      ...(dynamo.indexLag ? { indexLag: { now: clock.now, ...dynamo.indexLag } } : {}),
      ...(dynamo.stream ? { stream: { now: clock.now, ...dynamo.stream } } : {}),
    }));
  const tables = lagging ?? (await createTestTables());
  const changeStream = lagging?.dynamo.stream;
  const app = createLocalApp({
    endpoint: tables.endpoint,
    tables: tables.names,
    now: clock.now,
    ...(changeStream ? { changeStream } : {}),
    ...appOptions,
  });
  await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
  const { port } = app.server.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;
  const openapi = stackDocument(options);
  const publicPaths = new Set((options.publicRoutes ?? []).map((r) => `${r.method} ${basePathOf(r)}${r.path}`));
  const call = contractCheckedFetch(baseUrl, openapi, publicPaths);
  return {
    baseUrl,
    tables,
    app,
    clock,
    newKey: async (plan, limits) => {
      const { key, record } = await createApiKey(app.keys, { plan, ...(limits ? { limits } : {}) });
      return { key, id: record.id };
    },
    call,
    fetch: (input, init) =>
      call(
        init?.method ?? 'GET',
        String(input).slice(baseUrl.length),
        init?.headers as Record<string, string>,
        init?.body as string | undefined,
      ),
    openapi,
    close: async () => {
      await app.indexCanary?.close();
      app.server.closeAllConnections();
      await new Promise<void>((resolve) => app.server.close(() => resolve()));
      await (lagging ? lagging.close() : tables.drop());
    },
    settleIndexes: async () => lagging?.dynamo.settleIndexes(),
    setIndexLagMs: (maxMs) => {
      if (!lagging) throw new Error('The shared embedded server has no index lag to set');
      lagging.dynamo.setIndexLagMs(maxMs);
    },
  };
}

export const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** Asserts the Error record on a response and returns it. */
export async function expectError(
  response: Response,
  status: number,
  code: string,
): Promise<{ code: string; message: string; status: number }> {
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
