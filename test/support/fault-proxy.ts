import { randomUUID } from 'node:crypto';
import {
  Agent,
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';

/** One DynamoDB request as the proxy saw it on the wire. */
export interface SeenCall {
  /** `GetItem`, `UpdateItem`, … from `X-Amz-Target`. */
  operation: string;
  /** The SDK's id of one logical call: the same on each of its retries. */
  invocationId: string;
  /** From `amz-sdk-request: attempt=N; max=M`. */
  attempt: number;
  maxAttempts: number;
  /** Known when the proxy read the body (throttle mode). */
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
  /** Holds each request chunk this long before passing it on. */
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

function header(text: string, name: string): string | undefined {
  return new RegExp(`^${name}:[ \\t]*([^\\r\\n]*)`, 'im').exec(text)?.[1]?.trim();
}

/** The SDK request headers in a chunk of raw HTTP, when it starts a request. */
export function sniffCall(text: string): SeenCall | undefined {
  const target = header(text, 'x-amz-target');
  if (!target) return undefined;
  const retry = /attempt=(\d+);\s*max=(\d+)/.exec(header(text, 'amz-sdk-request') ?? '');
  return {
    operation: target.replace(/^DynamoDB_\d+\./, ''),
    invocationId: header(text, 'amz-sdk-invocation-id') ?? '',
    attempt: Number(retry?.[1] ?? 0),
    maxAttempts: Number(retry?.[2] ?? 0),
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

function tableOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { TableName?: unknown };
    return typeof parsed.TableName === 'string' ? parsed.TableName : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A loopback TCP proxy in front of a DynamoDB-compatible server, to inject network faults into a
 * real client talking to the real embedded server. The mode is chosen per connection, and changing
 * it cuts every open connection: a fault breaks live sockets too, and the client's kept-alive
 * sockets must not slip past the new mode.
 */
export async function startFaultProxy(upstreamPort: number): Promise<FaultProxy> {
  let upstream = upstreamPort;
  let mode: FaultMode = { kind: 'pass' };
  let accepted = 0;
  let seen: SeenCall[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const forwardAgent = new Agent({ keepAlive: true });

  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // Resets are what this proxy is for; an unhandled socket error would crash the test worker.
    socket.on('error', () => socket.destroy());
  };

  const sniff = (socket: Socket): void => {
    socket.on('data', (chunk: Buffer) => {
      const call = sniffCall(chunk.toString('latin1'));
      if (call) seen.push(call);
    });
  };

  const pipeWithDelay = (from: Socket, to: Socket, ms: number): void => {
    from.on('data', (chunk: Buffer) => {
      if (ms <= 0) {
        if (!to.write(chunk)) from.pause();
        return;
      }
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (!to.destroyed) to.write(chunk);
      }, ms);
      timers.add(timer);
    });
    to.on('drain', () => from.resume());
  };

  let replies = 0;
  let atServer = 0;
  /**
   * Each reply (a chunk starting with the status line; one call at a time per connection) held for
   * its own delay, every chunk released in order after the ones before it.
   */
  const pipeLate = (
    from: Socket,
    to: Socket,
    late: Extract<FaultMode, { kind: 'late replies' }>,
    onReply: () => void,
  ): void => {
    let previous: Promise<void> = Promise.resolve();
    let current: Promise<void> = Promise.resolve();
    const sleep = late.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    from.on('data', (chunk: Buffer) => {
      if (chunk.subarray(0, 5).toString('latin1') === 'HTTP/') {
        onReply();
        const ms = late.ms(++replies);
        const timedOut = late.timeoutMs !== undefined && ms > late.timeoutMs;
        current = timedOut
          ? sleep(late.timeoutMs ?? 0).then(() => {
              to.destroy();
            })
          : sleep(ms);
      }
      const release = Promise.all([previous, current]).then(() => {
        if (!to.destroyed) to.write(chunk);
      });
      previous = release;
    });
  };

  const pass = (client: Socket, mode: Extract<FaultMode, { kind: 'delay' | 'pass' | 'late replies' }>): void => {
    const onward = connect(upstream, '127.0.0.1');
    track(onward);
    client.on('close', () => onward.destroy());
    onward.on('close', () => client.destroy());
    pipeWithDelay(client, onward, mode.kind === 'delay' ? mode.ms : 0);
    if (mode.kind === 'late replies') {
      // One call at a time per connection: a call is at the server from its request to its reply.
      let here = 0;
      const settle = () => {
        atServer -= here;
        here = 0;
      };
      client.on('data', (chunk: Buffer) => {
        if (!sniffCall(chunk.toString('latin1'))) return;
        here++;
        atServer++;
      });
      onward.on('close', settle);
      pipeLate(onward, client, mode, settle);
    } else pipeWithDelay(onward, client, 0);
  };

  /** Throttle mode speaks HTTP, so it can answer per request and pass the others on. */
  const throttler = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      // Rebuilt as raw header text, so both paths read the SDK's headers with one parser.
      const head = Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : (v ?? '')}`)
        .join('\r\n');
      const text = body.toString('utf8');
      const table = tableOf(text);
      const only = mode.kind === 'throttle' ? mode.only : undefined;
      const call = sniffCall(head);
      const throttled = !only || only({ operation: call?.operation ?? '', table, body: text });
      if (call) seen.push({ ...call, ...(table === undefined ? {} : { table }), throttled });
      if (throttled) {
        writeThrottle(res);
        return;
      }
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
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      onward.on('error', () => res.destroy());
      onward.end(body);
    });
  });

  const server = createServer((client) => {
    accepted++;
    track(client);
    const current = mode;
    switch (current.kind) {
      case 'refuse':
        client.destroy();
        return;
      case 'blackhole':
        sniff(client);
        return;
      case 'delay':
      case 'pass':
      case 'late replies':
        sniff(client);
        pass(client, current);
        return;
      case 'throttle':
        throttler.emit('connection', client);
        return;
    }
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
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
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
      throttler.close();
    },
  };
}
