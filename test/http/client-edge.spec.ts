// The client against servers that misbehave, on real sockets (node:http on 127.0.0.1): a 200 that
// is not the JSON the API sends, a body that stalls, a caller that aborts, a gzip body missing its
// trailer. Each ends in a typed StoreOrdersApiError, never a raw SyntaxError, a hang or a short list.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { StoreOrdersApiError, StoreOrdersClient, type ListedOrder } from '../../client/client';

const ORDERS = Array.from({ length: 300 }, (_, i) => ({
  id: String(9007199254740993n + BigInt(i)),
  status: 'pending',
}));
const LIST = `[${ORDERS.map((o) => `{"id":${o.id},"status":"${o.status}"}`).join(',')}]`;

interface TestServer {
  baseUrl: string;
  /** Requests received, as `METHOD path`. */
  requests: string[];
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

async function serve(handle: (req: IncomingMessage, res: ServerResponse, n: number) => void): Promise<TestServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handle(req, res, requests.length);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests };
}

function client(server: TestServer, options: Partial<ConstructorParameters<typeof StoreOrdersClient>[0]> = {}) {
  return new StoreOrdersClient({
    baseUrl: server.baseUrl,
    apiKey: 'sok_test',
    sleep: async () => undefined,
    random: () => 0.5,
    ...options,
  });
}

async function failureOf(call: Promise<unknown>): Promise<StoreOrdersApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (error instanceof StoreOrdersApiError) return error;
  throw new Error(`expected a StoreOrdersApiError, got ${String(error)}`);
}

async function streamed(orders: AsyncIterable<ListedOrder>): Promise<{ orders: ListedOrder[]; error: unknown }> {
  const out: ListedOrder[] = [];
  try {
    for await (const order of orders) out.push(order);
  } catch (error) {
    return { orders: out, error };
  }
  return { orders: out, error: undefined };
}

describe('a 200 that is not the order list', () => {
  test.each([
    ['trailing garbage', `${LIST} garbage`],
    ['a second document', `${LIST}[]`],
    ['a cut document', LIST.slice(0, 100)],
    ['an HTML page', '<html>gateway</html>'],
    ['an order without its id', '[{"status":"pending"}]'],
  ])('listOrders() on %s is UNEXPECTED_RESPONSE, not a SyntaxError', async (_name, body) => {
    const server = await serve((_req, res) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body));
    const error = await failureOf(client(server).listOrders());
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
    expect(server.requests).toHaveLength(1);
  });

  test('a redirect is not followed: UNEXPECTED_RESPONSE with the 3xx status, one request', async () => {
    const server = await serve((_req, res) => res.writeHead(302, { Location: '/v1/store/orders' }).end());
    const error = await failureOf(client(server).listOrders());
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 302 });
    expect(server.requests).toHaveLength(1);
  });

  test('listOrdersStream() on an order that is not JSON is UNEXPECTED_RESPONSE, not TRUNCATED_RESPONSE', async () => {
    const server = await serve((_req, res) => res.writeHead(200).end('[{"id":1,"status":"pending"},{"id":2,}]'));
    const { error } = await streamed(client(server).listOrdersStream());
    expect(error).toBeInstanceOf(StoreOrdersApiError);
    expect(error).toMatchObject({ code: 'UNEXPECTED_RESPONSE', status: 200 });
  });
});

describe('a gzip body missing its trailer (CRC-32 and length), well framed otherwise', () => {
  const gz = gzipSync(Buffer.from(LIST));
  const cut = gz.subarray(0, gz.length - 8);
  const sendCut = (_req: IncomingMessage, res: ServerResponse) =>
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(cut);

  test('listOrders() reports it as TRUNCATED_RESPONSE after retrying, never as the whole list', async () => {
    const server = await serve(sendCut);
    const error = await failureOf(client(server, { maxRetries: 1 }).listOrders());
    expect(error).toMatchObject({ code: 'TRUNCATED_RESPONSE', status: 200 });
    expect(error.message).toMatch(/gzip/);
    expect(server.requests).toHaveLength(2);
  });

  test('listOrdersStream() yields the orders, then throws TRUNCATED_RESPONSE instead of ending', async () => {
    const server = await serve(sendCut);
    const { orders, error } = await streamed(client(server).listOrdersStream());
    expect(error).toMatchObject({ code: 'TRUNCATED_RESPONSE', status: 200 });
    expect(orders.length).toBeLessThanOrEqual(ORDERS.length);
  });

  test('the same body with its trailer is the whole list, both ways (the control)', async () => {
    const server = await serve((_req, res) => res.writeHead(200, { 'Content-Encoding': 'gzip' }).end(gz));
    const api = client(server);
    expect(await api.listOrders()).toEqual(ORDERS);
    expect(await streamed(api.listOrdersStream())).toEqual({ orders: ORDERS, error: undefined });
  });

  test('both ask for gzip', async () => {
    const encodings: (string | undefined)[] = [];
    const server = await serve((req, res) => {
      encodings.push(req.headers['accept-encoding']);
      res.writeHead(200).end('[]');
    });
    await client(server).listOrders();
    await streamed(client(server).listOrdersStream());
    expect(encodings).toEqual(['gzip', 'gzip']);
  });
});

describe('timeouts', () => {
  // The servers run in this jest worker: on a loaded machine the worker can stall for some hundreds
  // of milliseconds, and a timeout that short could then hit the wait for the response head (status
  // 0) instead of the wait the test is about. 1.5 s leaves a wide margin and keeps the tests short.
  const TIMEOUT_MS = 1500;

  /** Sends the headers and the start of the list, then nothing more: the connection stays open. */
  const stallAfterStart = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('[{"id":9223372036854775807,"status":"pending"},');
  };

  test('a body that stalls: listOrders() gives TIMEOUT (status 200), retried, not a 300 s hang', async () => {
    // What a real clock would do, without the wait: a timer armed once the server held a request
    // fires when the server has stalled on that request's body, once per request (the wait for the
    // next attempt's answer is a new request's).
    let stalled = 0;
    const firedFor = new Set<number>();
    const armed: { request: number; fire: () => void }[] = [];
    const fireDue = () => {
      for (const timer of armed.splice(0)) {
        if (timer.request > 0 && timer.request <= stalled) timer.fire();
        else armed.push(timer);
      }
    };
    const server = await serve((req, res) => {
      stallAfterStart(req, res);
      res.write('', () => {
        stalled++;
        fireDue();
      });
    });
    const api = client(server, {
      timeoutMs: TIMEOUT_MS,
      maxRetries: 1,
      startTimer: (_ms, onTimeout) => {
        const request = server.requests.length;
        let live = true;
        const fire = () =>
          setImmediate(() => {
            if (!live || firedFor.has(request)) return;
            firedFor.add(request);
            onTimeout();
          });
        armed.push({ request, fire });
        fireDue();
        return () => void (live = false);
      },
    });
    const error = await failureOf(api.listOrders());
    expect(error).toMatchObject({ code: 'TIMEOUT', status: 200 });
    expect(error.message).toContain(`${TIMEOUT_MS} ms`);
    expect(server.requests).toHaveLength(2);
    expect([...firedFor]).toEqual([1, 2]);
  });

  test('a body that stalls: listOrdersStream() yields what came, then TIMEOUT', async () => {
    const server = await serve(stallAfterStart);
    const { orders, error } = await streamed(client(server, { timeoutMs: TIMEOUT_MS }).listOrdersStream());
    expect(orders).toEqual([{ id: '9223372036854775807', status: 'pending' }]);
    expect(error).toMatchObject({ code: 'TIMEOUT', status: 200 });
  }, 10_000);

  test('no answer at all: TIMEOUT with status 0, after the retries; a call may set its own timeout', async () => {
    // The timer of each attempt fires once the server holds that attempt's request, which it never
    // answers: what a real clock would do after timeoutMs, without the wait.
    const waiting: { requests: number; fire: () => void }[] = [];
    const fireDue = () => {
      for (const timer of waiting.splice(0)) {
        if (timer.requests <= server.requests.length) timer.fire();
        else waiting.push(timer);
      }
    };
    const server = await serve(fireDue);
    const armed: number[] = [];
    const api = client(server, {
      timeoutMs: 60_000,
      maxRetries: 2,
      startTimer: (ms, onTimeout) => {
        armed.push(ms);
        let live = true;
        // Fired from the event loop, as a real timer is, never from inside startTimer.
        waiting.push({ requests: armed.length, fire: () => setImmediate(() => live && onTimeout()) });
        fireDue();
        return () => void (live = false);
      },
    });
    const error = await failureOf(api.cancelOrder('5', { timeoutMs: TIMEOUT_MS }));
    expect(error).toMatchObject({ code: 'TIMEOUT', status: 0 });
    expect(error.message).toContain(`${TIMEOUT_MS} ms`);
    expect(armed).toEqual([TIMEOUT_MS, TIMEOUT_MS, TIMEOUT_MS]);
    expect(server.requests).toEqual([
      'DELETE /v1/store/orders/5',
      'DELETE /v1/store/orders/5',
      'DELETE /v1/store/orders/5',
    ]);
  });

  test('timeoutMs: Infinity is no timeout (not the 1 ms setTimeout makes of it)', async () => {
    const server = await serve((_req, res) => {
      setTimeout(() => res.writeHead(200).end(LIST), 100);
    });
    expect(await client(server, { timeoutMs: Number.POSITIVE_INFINITY, maxRetries: 0 }).listOrders()).toEqual(ORDERS);
  });

  test.each([[0], [-1], [Number.NaN]])('timeoutMs %p is a TypeError, before anything is sent', async (timeoutMs) => {
    const server = await serve((_req, res) => res.writeHead(200).end('[]'));
    await expect(client(server, { timeoutMs }).listOrders()).rejects.toThrow(/timeoutMs must be a positive number/);
    await expect(client(server).cancelOrder('5', { timeoutMs })).rejects.toThrow(TypeError);
    expect(server.requests).toEqual([]);
  });

  test('a slow consumer of listOrdersStream() is not timed out: only waits on the server count', async () => {
    const server = await serve((_req, res) => res.writeHead(200).end(LIST));
    // Timers that never fire: what counts is that none is armed while the consumer holds an order.
    let armed = 0;
    let armedMost = 0;
    const api = client(server, {
      timeoutMs: TIMEOUT_MS,
      startTimer: () => {
        armedMost = Math.max(armedMost, ++armed);
        return () => void armed--;
      },
    });
    const orders: ListedOrder[] = [];
    const armedWhileHeld: number[] = [];
    for await (const order of api.listOrdersStream()) {
      armedWhileHeld.push(armed);
      // A consumer that takes its time: other work runs meanwhile (the event loop turns).
      if (orders.length === 0) await new Promise((resolve) => setImmediate(resolve));
      armedWhileHeld.push(armed);
      orders.push(order);
    }
    expect(orders).toEqual(ORDERS);
    expect(armedMost).toBe(1);
    expect(new Set(armedWhileHeld)).toEqual(new Set([0]));
  });
});

describe('an AbortSignal', () => {
  test('aborted while the body streams: ABORTED with the reason as cause, never retried', async () => {
    let started!: () => void;
    const headersSent = new Promise<void>((resolve) => (started = resolve));
    const server = await serve((_req, res) => {
      res.writeHead(200);
      res.write('[');
      started();
    });
    const controller = new AbortController();
    const call = client(server).listOrders({ signal: controller.signal });
    await headersSent;
    const reason = new Error('user left');
    controller.abort(reason);
    const error = await failureOf(call);
    expect(error).toMatchObject({ code: 'ABORTED', cause: reason });
    expect(server.requests).toHaveLength(1);
  }, 10_000);

  const MANY = Array.from({ length: 500 }, (_, i) => `{"id":${i + 1},"status":"pending"}`).join(',');
  test.each([
    ['mid-stream', '[{"id":1,"status":"pending"},'],
    // A network chunk holds many orders: the abort stops at the next one, not at the chunk's end.
    ['after the first of many orders in one chunk', `[${MANY},`],
  ])(
    'aborted %s: listOrdersStream() stops with ABORTED, no further order yielded',
    async (_case, body) => {
      const server = await serve((_req, res) => {
        res.writeHead(200);
        res.write(body);
      });
      const controller = new AbortController();
      const orders: ListedOrder[] = [];
      const error = await (async () => {
        for await (const order of client(server).listOrdersStream({ signal: controller.signal })) {
          orders.push(order);
          controller.abort();
        }
      })().catch((e: unknown) => e);
      expect(orders).toEqual([{ id: '1', status: 'pending' }]);
      expect(error).toMatchObject({ code: 'ABORTED' });
    },
    10_000,
  );

  test('aborted during the wait before a retry: ABORTED at once, no further request', async () => {
    const server = await serve((_req, res) =>
      res.writeHead(503, { 'Retry-After': '30' }).end('{"code":"SERVICE_UNAVAILABLE","message":"x","status":503}'),
    );
    const controller = new AbortController();
    const api = client(server, {
      // A wait that never ends on its own: only the abort can end the call.
      sleep: () => new Promise<void>(() => undefined),
      onRetry: () => controller.abort(),
    });
    const error = await failureOf(api.listOrders({ signal: controller.signal }));
    expect(error.code).toBe('ABORTED');
    expect(server.requests).toHaveLength(1);
  }, 10_000);

  test('already aborted: nothing is sent', async () => {
    const server = await serve((_req, res) => res.writeHead(204).end());
    const error = await failureOf(client(server).cancelOrder(5n, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('ABORTED');
    expect(server.requests).toEqual([]);
  });
});
