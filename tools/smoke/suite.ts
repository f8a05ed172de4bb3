// The black-box checks a client relies on, run against any base URL: a deployed stage or the
// local stack. Each check prints one line. Nothing it did not create is ever changed: its only
// writes (with allowWrites) are orders it imports itself, in a reserved id range.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isInteger, parse, type LosslessNumber } from 'lossless-json';
import { WWW_AUTHENTICATE } from '../../lib/contract/errors';
import { RATE_LIMIT_HEADERS } from '../../lib/contract/headers';
import { deprecationHeaders, ROUTES, type Route } from '../../lib/contract/routes';
import { generateApiKey } from '../../lib/core/access/key-format';
import { canonicalInt64 } from '../../lib/contract/order';
import { ordersImport } from '../admin/commands/orders';
import type { Output } from '../shared/output';
import type { AdminTarget } from '../admin/target';
import { bearer, call, CheckFailed, fail, header, must, mustBeError, type Answer } from './http';
import { firstAccepted, ThrowawayKeys } from './throwaway-keys';
import { errorMessage } from '../shared/errors';

/**
 * Order ids the smoke suite may create: nothing else uses this range. Each run imports its own
 * ids in it; the last id is never created, so cancelling it is always a 404.
 */
export const SMOKE_ORDER_IDS = { first: 9_100_000_000_000_000_000n, count: 1_000_000_000_000_000n } as const;

export interface SmokeOptions {
  /** The API's base URL, ending in the base path (e.g. `https://…/v1`). */
  baseUrl: string;
  /** v2's base URL (e.g. `https://…/v2`), another API id on the execute-api host; its check is skipped without it. */
  v2BaseUrl?: string;
  /** A working key for the read checks. */
  key: string;
  /** Where the admin command's functions create and revoke throwaway keys (and import orders). */
  admin: AdminTarget;
  /** The run's throwaway keys, revoked by its caller at the end; a set of its own when not given. */
  throwaway?: ThrowawayKeys;
  /** Stops the run before its next check (Ctrl-C). */
  signal?: AbortSignal;
  allowWrites: boolean;
  /** One line per check. */
  print(line: string): void;
  /** The routes to look for deprecations on; the declared ones unless a test adds its own. */
  routes?: readonly Route[];
  /** Pause between polls while a new key propagates to API Gateway. */
  sleep?: (ms: number) => Promise<void>;
}

export type Outcome = 'ok' | 'FAIL' | 'skip';
export interface CheckResult {
  name: string;
  outcome: Outcome;
  detail?: string;
}

/** A check that does not apply here (why is printed). */
class Skip extends Error {}

interface Check {
  name: string;
  run(context: SmokeOptions): Promise<string | void>;
}

const quiet: Output = { out: () => undefined, err: () => undefined };

function mustBeUnauthorized(answer: Answer): void {
  mustBeError(answer, 401, 'UNAUTHORIZED');
  must(header(answer, 'WWW-Authenticate') === WWW_AUTHENTICATE, `WWW-Authenticate is not ${WWW_AUTHENTICATE}`);
}

function mustBeMethodNotAllowed(answer: Answer, allow: string): void {
  mustBeError(answer, 405, 'METHOD_NOT_ALLOWED');
  must(header(answer, 'Allow') === allow, `Allow is ${header(answer, 'Allow')}`);
}

function nonNegativeInteger(answer: Answer, name: string): number {
  const text = header(answer, name);
  must(/^\d+$/.test(text), `${name} is not a whole number: ${text}`);
  return Number(text);
}

function mustHaveRateLimitHeaders(answer: Answer): void {
  must(nonNegativeInteger(answer, RATE_LIMIT_HEADERS.limit) > 0, `${RATE_LIMIT_HEADERS.limit} is 0`);
  nonNegativeInteger(answer, RATE_LIMIT_HEADERS.remaining);
  nonNegativeInteger(answer, RATE_LIMIT_HEADERS.reset);
}

/** An int64 id literal written exactly: an integer token whose digits are the canonical ones. */
function exactId(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || !('isLosslessNumber' in value)) return false;
  const text = (value as LosslessNumber).value;
  return isInteger(text) && canonicalInt64(text) === text;
}

/** A 200 answer's JSON body, parsed with every int64 exact; `what` names the body in a failure. */
function jsonBody(answer: Answer, what: string): unknown {
  must(answer.status === 200, `expected 200, got ${answer.status}: ${answer.text.slice(0, 200)}`);
  must(/^application\/json\b/.test(answer.headers.get('content-type') ?? ''), `${what} is not application/json`);
  try {
    return parse(answer.text);
  } catch (error) {
    fail(`the body is not one valid JSON value (${errorMessage(error)})`);
  }
}

/** Every element an order object with an exactly written int64 id. */
function mustHaveExactIds(orders: unknown[], element: string): void {
  const bad = orders.find(
    (order) => typeof order !== 'object' || order === null || !exactId((order as { id?: unknown }).id),
  );
  must(bad === undefined, `${element} has no exact int64 id: ${JSON.stringify(String(bad)).slice(0, 120)}`);
}

const id = (n: bigint) => String(SMOKE_ORDER_IDS.first + n);
const NEVER_CREATED_ID = id(SMOKE_ORDER_IDS.count - 1n);

const CHECKS: Check[] = [
  {
    name: '401 without an Authorization header, with WWW-Authenticate',
    run: async ({ baseUrl }) => mustBeUnauthorized(await call(baseUrl, 'GET', '/store/orders')),
  },
  {
    name: '401 for a header that is not a bearer key, with WWW-Authenticate',
    run: async ({ baseUrl }) =>
      mustBeUnauthorized(
        await call(baseUrl, 'GET', '/store/orders', { headers: { Authorization: 'Basic c21va2U6dGVzdA==' } }),
      ),
  },
  {
    name: '401 for a well-formed key that does not exist, with WWW-Authenticate',
    run: async ({ baseUrl }) =>
      mustBeUnauthorized(await call(baseUrl, 'GET', '/store/orders', { headers: bearer(generateApiKey()) })),
  },
  {
    name: 'GET /store/orders: 200, one JSON array, exact int64 ids, rate-limit headers',
    run: async ({ baseUrl, key }) => {
      const answer = await call(baseUrl, 'GET', '/store/orders', { headers: bearer(key) });
      const list = jsonBody(answer, 'the list');
      must(Array.isArray(list), 'the body is not a JSON array');
      const orders = list as unknown[];
      mustHaveExactIds(orders, 'an element');
      mustHaveRateLimitHeaders(answer);
      return `${orders.length} orders`;
    },
  },
  {
    name: 'GET /v2/store/orders?limit=1: 401 without a key; with one, 200, one page of at most one order, rate-limit headers',
    run: async ({ v2BaseUrl, key }) => {
      if (v2BaseUrl === undefined)
        throw new Skip('no v2 base URL: no V2ApiUrl stack output (deployed before v2), nor a base URL ending in /v1');
      mustBeUnauthorized(await call(v2BaseUrl, 'GET', '/store/orders'));
      const answer = await call(v2BaseUrl, 'GET', '/store/orders?limit=1', { headers: bearer(key) });
      const page = jsonBody(answer, 'the page');
      const { orders, nextCursor } = (page ?? {}) as { orders?: unknown; nextCursor?: unknown };
      must(Array.isArray(orders) && orders.length <= 1, 'the body is not {"orders": [at most one order]}');
      mustHaveExactIds(orders, 'an order');
      must(
        nextCursor === undefined || (typeof nextCursor === 'string' && nextCursor !== ''),
        'nextCursor is not a string',
      );
      if (nextCursor !== undefined)
        must(/rel="next"/.test(header(answer, 'Link')), 'a next page without Link rel="next"');
      mustHaveRateLimitHeaders(answer);
      return nextCursor === undefined ? `${orders.length} order(s), the last page` : 'one order, and a next page';
    },
  },
  {
    name: 'DELETE /store/orders/not-a-number: 400 INVALID_ORDER_ID',
    run: async ({ baseUrl, key }) =>
      mustBeError(
        await call(baseUrl, 'DELETE', '/store/orders/not-a-number', { headers: bearer(key) }),
        400,
        'INVALID_ORDER_ID',
      ),
  },
  {
    name: `DELETE an id never created (${NEVER_CREATED_ID}): 404 ORDER_NOT_FOUND`,
    run: async ({ baseUrl, key }) =>
      mustBeError(
        await call(baseUrl, 'DELETE', `/store/orders/${NEVER_CREATED_ID}`, { headers: bearer(key) }),
        404,
        'ORDER_NOT_FOUND',
      ),
  },
  {
    name: 'PUT /store/orders/1 with a text/plain body: 405 METHOD_NOT_ALLOWED, Allow: DELETE',
    run: async ({ baseUrl }) =>
      mustBeMethodNotAllowed(
        await call(baseUrl, 'PUT', '/store/orders/1', { headers: { 'Content-Type': 'text/plain' }, body: 'not json' }),
        'DELETE',
      ),
  },
  {
    name: 'POST /store/orders with a form body: 405 METHOD_NOT_ALLOWED, Allow: GET',
    run: async ({ baseUrl }) => {
      const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
      mustBeMethodNotAllowed(await call(baseUrl, 'POST', '/store/orders', { headers: form, body: 'a=1&b=2' }), 'GET');
    },
  },
  {
    name: 'GET an unknown path: gateway 404 NOT_FOUND',
    run: async ({ baseUrl, key }) =>
      mustBeError(await call(baseUrl, 'GET', '/store/no-such-resource', { headers: bearer(key) }), 404, 'NOT_FOUND'),
  },
  {
    name: 'DELETE /store/orders/ (trailing slash) is the list resource: 405, Allow: GET',
    run: async ({ baseUrl, key }) =>
      mustBeMethodNotAllowed(await call(baseUrl, 'DELETE', '/store/orders/', { headers: bearer(key) }), 'GET'),
  },
  {
    name: '429 with Retry-After for a throwaway enterprise key at its limit',
    run: async (context) => {
      const keys = context.throwaway ?? new ThrowawayKeys(context.admin);
      const throwaway = await keys.create({ perMinute: 1, perDay: 1 });
      try {
        // Invalid ids: each request is counted by the limiter and touches no order.
        const send = () =>
          call(context.baseUrl, 'DELETE', '/store/orders/not-a-number', { headers: bearer(throwaway.key) });
        const first = await firstAccepted(send, context.sleep);
        mustBeError(first, 400, 'INVALID_ORDER_ID');
        const limited = await send();
        must(
          limited.status === 429,
          `expected 429 after the limit, got ${limited.status}: ${limited.text.slice(0, 200)}`,
        );
        const code = (JSON.parse(limited.text) as { code?: unknown }).code;
        must(code === 'RATE_LIMITED' || code === 'QUOTA_EXCEEDED', `429 code is ${String(code)}`);
        mustBeError(limited, 429, code as 'RATE_LIMITED' | 'QUOTA_EXCEEDED');
        must(nonNegativeInteger(limited, 'Retry-After') > 0, 'Retry-After is 0');
        mustHaveRateLimitHeaders(limited);
        return `${String(code)}, Retry-After ${header(limited, 'Retry-After')} s`;
      } finally {
        await keys.revoke(throwaway.id);
      }
    },
  },
  {
    name: 'deprecated routes answer Deprecation and Sunset',
    run: async ({ baseUrl, key, routes = ROUTES }) => {
      const deprecated = routes.filter((route) => route.deprecated);
      if (deprecated.length === 0) throw new Skip('no route is deprecated');
      for (const route of deprecated) {
        // A path parameter gets a value no route accepts: the answer is a refusal, never a write.
        const path = route.path.replace(/\{[^}]+\}/g, 'not-a-number');
        const answer = await call(baseUrl, route.method, path, { headers: bearer(key) });
        for (const [name, value] of Object.entries(deprecationHeaders(route))) {
          must(
            answer.headers.get(name) === value,
            `${route.method} ${route.path}: ${name} is ${answer.headers.get(name)}, expected ${value}`,
          );
        }
      }
      return deprecated.map((r) => r.operationId).join(', ');
    },
  },
  {
    name: 'cancel the suite’s own orders: 204, 204 again, 409 for a shipped one',
    run: async (context) => {
      if (!context.allowWrites) throw new Skip('writes need --allow-writes');
      const base = BigInt(Date.now()) * 10n;
      const pending = id(base);
      const shipped = id(base + 1n);
      const dir = await mkdtemp(join(tmpdir(), 'store-orders-smoke-'));
      try {
        const file = join(dir, 'orders.json');
        await writeFile(file, `[{"id": ${pending}, "status": "pending"}, {"id": ${shipped}, "status": "shipped"}]`);
        await ordersImport.prepare({ values: {}, args: [file] })({
          target: context.admin,
          out: quiet,
          clock: context.admin.clock,
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      const cancel = (orderId: string) =>
        call(context.baseUrl, 'DELETE', `/store/orders/${orderId}`, { headers: bearer(context.key) });
      for (const attempt of ['first', 'repeated']) {
        const answer = await cancel(pending);
        must(
          answer.status === 204 && answer.text === '',
          `${attempt} cancel of ${pending}: expected 204 with no body, got ${answer.status}`,
        );
      }
      mustBeError(await cancel(shipped), 409, 'ORDER_ALREADY_SHIPPED');
      const states = [
        (await context.admin.orders.get(pending))?.status,
        (await context.admin.orders.get(shipped))?.status,
      ];
      must(states.join() === 'cancelled,shipped', `stored states are ${states.join(', ')}`);
      return `orders ${pending} and ${shipped}`;
    },
  },
];

/** The names of every check, in the order they run. */
export const CHECK_NAMES = CHECKS.map((check) => check.name);

/** Runs every check, printing one line each; never throws. Stops early only when `signal` aborts. */
export async function runSmoke(context: SmokeOptions): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of CHECKS) {
    if (context.signal?.aborted) break;
    let result: CheckResult;
    try {
      const detail = await check.run(context);
      result = { name: check.name, outcome: 'ok', ...(detail ? { detail } : {}) };
    } catch (error) {
      const outcome: Outcome = error instanceof Skip ? 'skip' : 'FAIL';
      const detail =
        error instanceof CheckFailed || error instanceof Skip
          ? error.message
          : `unexpected error: ${errorMessage(error)}`;
      result = { name: check.name, outcome, detail };
    }
    results.push(result);
    context.print(`${result.outcome.padEnd(4)} ${result.name}${result.detail ? ` (${result.detail})` : ''}`);
  }
  return results;
}
