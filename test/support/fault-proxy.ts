import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { crc32 } from 'node:zlib';
import { holdCalls, type HeldCall } from '../../tools/local/held-calls';

/** One DynamoDB request as the proxy saw it on the wire. */
export interface SeenCall {
  /** `GetItem`, `UpdateItem`, … from `X-Amz-Target`. */
  operation: string;
  /** The SDK's id of one logical call: the same on each of its retries. */
  invocationId: string;
  /** From `amz-sdk-request: attempt=N; max=M`. */
  attempt: number;
  maxAttempts: number;
  /** The table, when the request names one. */
  table?: string;
  /** Answered by the proxy with a throttling error rather than passed on. */
  throttled?: boolean;
}

/** What a DynamoDB call looks like to a throttle filter. */
export interface ThrottleTarget {
  operation: string;
  table: string | undefined;
  /** The request's JSON text, e.g. to pick one item by its key. */
  body: string;
}

export type FaultMode =
  | { kind: 'pass' }
  /** Accepts and closes at once: the client sees a reset or a hang-up. */
  | { kind: 'refuse' }
  /** Accepts and never answers, like a dropped route. */
  | { kind: 'blackhole' }
  /** Holds each request this long before passing it on; one whose client gave up meanwhile never arrives. */
  | { kind: 'delay'; ms: number }
  /**
   * Passes each request on at once and holds its reply `ms(n)` ms (n: the reply's number, from 1),
   * with `sleep` (an injected clock's) when given: the server has applied the call, its caller
   * waits. A connection's replies stay in order.
   */
  | {
      kind: 'late replies';
      ms: (n: number) => number;
      sleep?: (ms: number) => Promise<void>;
      /**
       * The client's per-attempt timeout, kept on the same clock: a reply later than this is never
       * sent, the connection is cut at the timeout instead (the call stays applied), as the SDK
       * gives up on it. For a client whose own timeout cannot run on that clock.
       */
      timeoutMs?: number;
    }
  /** Answers DynamoDB's 400 ProvisionedThroughputExceededException; `only` narrows it to some calls. */
  | { kind: 'throttle'; only?: (target: ThrottleTarget) => boolean };

export interface FaultProxy {
  endpoint: string;
  port: number;
  set(mode: FaultMode): void;
  /** Stops listening, so connections are refused by the OS. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  /** Points at another upstream port (a restarted server). */
  retarget(port: number): void;
  /** Connections accepted since the last reset. */
  connections(): number;
  /** DynamoDB requests seen since the last reset (also those refused, held or throttled). */
  calls(): SeenCall[];
  /** Calls passed on to the server whose reply has not come back from it yet ('late replies'). */
  atServer(): number;
  resetStats(): void;
  close(): Promise<void>;
}

const THROTTLE_TYPE = 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException';

/** The call as the SDK sent it: its attempt from `amz-sdk-request: attempt=N; max=M`. */
function seenCall(call: HeldCall, headers: IncomingHttpHeaders): SeenCall {
  const retry = /attempt=(\d+);\s*max=(\d+)/.exec(String(headers['amz-sdk-request'] ?? ''));
  return {
    operation: call.operation,
    invocationId: String(headers['amz-sdk-invocation-id'] ?? ''),
    attempt: Number(retry?.[1] ?? 0),
    maxAttempts: Number(retry?.[2] ?? 0),
    ...(call.table === undefined ? {} : { table: call.table }),
  };
}

/** DynamoDB's throttling answer, byte for byte what the service sends (with its CRC32 header). */
function writeThrottle(res: ServerResponse): void {
  const body = JSON.stringify({
    __type: THROTTLE_TYPE,
    message: 'The level of configured provisioned throughput for the table was exceeded.',
  });
  res.writeHead(400, {
    'Content-Type': 'application/x-amz-json-1.0',
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': randomUUID(),
    'x-amz-crc32': String(crc32(body)),
  });
  res.end(body);
}

/** Settles `false` (dropped) once the call's client gives up: what the network does with a call it never delivers. */
const untilAbandoned = (call: HeldCall): Promise<boolean> =>
  new Promise((resolve) => {
    if (call.abandoned.aborted) resolve(false);
    call.abandoned.addEventListener('abort', () => resolve(false));
  });

/**
 * A loopback proxy in front of a DynamoDB-compatible server, to inject faults into a real client
 * talking to the real embedded server. Each call is held by the local stack's mechanism
 * (tools/local/held-calls.ts: delayed, dropped, or answered with a throttling error here), then
 * forwarded, its reply held when asked; refusing connections and going down are the socket's.
 * Changing the mode cuts every open connection: a fault breaks live sockets too, and the client's
 * kept-alive sockets must not slip past the new mode.
 */
export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  let upstream = upstreamPort;
  let mode: FaultMode = { kind: 'pass' };
  let accepted = 0;
  let seen: SeenCall[] = [];
  let replies = 0;
  let atServer = 0;
  const sockets = new Set<Socket>();
  const forwardAgent = new Agent({ keepAlive: true });

  /** Passes the call on; in 'late replies' mode holds the reply, or cuts the connection at the timeout. */
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const late = mode.kind === 'late replies' ? mode : undefined;
    let here = true;
    atServer++;
    const back = () => {
      if (here) atServer--;
      here = false;
    };
    const onward = httpRequest(
      {
        host: '127.0.0.1',
        port: upstream,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: forwardAgent,
      },
      (answer) => {
        back();
        const reply = () => {
          if (res.destroyed) return void answer.resume();
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        };
        if (!late) return reply();
        const ms = late.ms(++replies);
        const sleep = late.sleep ?? ((wait: number) => sleepFor(wait));
        const cut = late.timeoutMs !== undefined && ms > late.timeoutMs;
        void sleep(cut ? (late.timeoutMs ?? 0) : ms).then(() => {
          if (!cut) return reply();
          // Cut at the client's timeout: the call stays applied, unanswered.
          answer.resume();
          res.destroy();
        });
      },
    );
    onward.on('error', () => {
      back();
      res.destroy();
    });
    // A client that hangs up drops the connection to the server too, as a network does: the server
    // sees it gone (and applies the call all the same).
    res.once('close', () => {
      if (!res.writableFinished) onward.destroy();
    });
    req.pipe(onward);
  };

  /** The mode's hold of one call, recorded as the SDK sent it. */
  const fault = (call: HeldCall, reply: ServerResponse): Promise<boolean> | undefined => {
    const seenNow = seenCall(call, reply.req.headers);
    seen.push(seenNow);
    switch (mode.kind) {
      case 'blackhole':
        return untilAbandoned(call);
      case 'delay':
        return sleepFor(mode.ms, true, { signal: call.abandoned }).catch(() => false);
      case 'throttle':
        seenNow.throttled = !mode.only || mode.only({ operation: call.operation, table: call.table, body: call.body });
        if (!seenNow.throttled) return undefined;
        writeThrottle(reply);
        return Promise.resolve(false);
      default:
        return undefined;
    }
  };

  const server = createServer(forward);
  holdCalls(server, fault);
  // As the embedded server's: no keep-alive timer closing a pooled socket under a busy process.
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Resets are what this proxy is for; an unhandled socket error would crash the test worker.
    socket.on('error', () => socket.destroy());
    if (mode.kind === 'refuse') socket.destroy();
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const cutAll = (): void => {
    for (const socket of sockets) socket.destroy();
  };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      server.close(() => resolve());
      cutAll();
    });

  await listen(0);
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    set: (next) => {
      mode = next;
      cutAll();
    },
    down: stopListening,
    up: () => listen(port),
    retarget: (next) => {
      upstream = next;
      cutAll();
    },
    connections: () => accepted,
    atServer: () => atServer,
    calls: () => [...seen],
    resetStats: () => {
      accepted = 0;
      seen = [];
    },
    close: async () => {
      await stopListening();
      forwardAgent.destroy();
    },
  };
}
