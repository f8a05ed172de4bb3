// DynamoDB calls that reach the server late, as on AWS, where a write can be applied after its client
// gave up (a timeout, a dropped connection): it is not undone for that. Each call's body is read whole,
// its hold is asked, and the call goes on to the server's handler when the hold is over, whether or
// not its client is still there. Other calls are served meanwhile. `npm start --hold-writes-ms` holds
// dynalite's writes; the tests' fault proxy its forwarded calls (test/support/fault-proxy.ts).
import { PassThrough } from 'node:stream';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HeldCall {
  /** The DynamoDB operation, e.g. `PutItem`. */
  operation: string;
  /** The table, when the request names one table. */
  table: string | undefined;
  /** The request's JSON body, as sent. */
  body: string;
  /** Aborted when its client hangs up (gave up waiting): a hold may still apply it, as late as it likes. */
  abandoned: AbortSignal;
}

/** A number > 0 holds the call that many ms; a promise until it settles (`false`: answered or dropped there, not sent on). */
export type CallHold = (call: HeldCall, reply: ServerResponse) => number | Promise<unknown> | undefined;

/** The requests that write items (dynalite 4 answers TransactWriteItems as an unknown operation). */
export const WRITE_OPERATIONS: ReadonlySet<string> = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

export interface CallHolds {
  /** Ends every hold now and resolves once each call sent on has been answered: for the server's close. */
  release(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Puts the holds in front of the server's own request handler. */
export function holdCalls(server: Server, hold: CallHold): CallHolds {
  const handlers = server.listeners('request') as Handler[];
  server.removeAllListeners('request');
  const handle: Handler = (req, res) => handlers.forEach((handler) => handler(req, res));
  // Aborted by release(): it ends every hold, a timer's included.
  const release = new AbortController();
  const released = new Promise<void>((resolve) => release.signal.addEventListener('abort', () => resolve()));
  const answered = new Set<Promise<void>>();

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1];
    if (operation === undefined) return handle(req, res);
    const abandoned = new AbortController();
    res.once('close', () => abandoned.abort());
    const done = readBody(req).then(
      async (body) => {
        const text = body.toString();
        const call = { operation, table: tableOf(text), body: text, abandoned: abandoned.signal };
        const held = holding(() => hold(call, res), release.signal);
        if (held !== undefined && (await Promise.race([held, released])) === false) return;
        await new Promise<void>((resolve) => {
          // The handler answers once the call is applied; the client may have gone ('close' came long ago).
          const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
          res.end = ((...args: unknown[]) => {
            resolve();
            return end(...args);
          }) as ServerResponse['end'];
          handle(replayed(req, body), res);
        });
      },
      // A body that never arrived whole was never a request: nothing to apply, as on AWS.
      () => void res.destroy(),
    );
    answered.add(done);
    void done.finally(() => answered.delete(done));
  });

  return {
    release: async () => {
      release.abort();
      await Promise.all(answered);
    },
  };
}

/** The hold as a promise that never fails (a hold that fails is over all the same), or none. */
function holding(ask: () => ReturnType<CallHold>, signal: AbortSignal): Promise<unknown> | undefined {
  let wait: ReturnType<CallHold>;
  try {
    wait = ask();
  } catch {
    return undefined;
  }
  if (typeof wait === 'number') return wait > 0 ? sleep(wait, undefined, { signal }).catch(() => undefined) : undefined;
  return wait?.catch(() => undefined);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The request again, its body already read: what the server's handler reads instead. */
function replayed(req: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = Object.assign(new PassThrough(), { headers: req.headers, method: req.method, url: req.url });
  copy.end(body);
  return copy as unknown as IncomingMessage;
}

function tableOf(body: string): string | undefined {
  try {
    const { TableName, RequestItems } = JSON.parse(body) as { TableName?: unknown; RequestItems?: object };
    const tables = typeof TableName === 'string' ? [TableName] : Object.keys(RequestItems ?? {});
    return tables.length === 1 ? tables[0] : undefined;
  } catch {
    return undefined; // not JSON, or not an object
  }
}

/** `npm start`'s holds: every `every`th write held `ms` milliseconds. */
export function everyKthWrite(ms: number, every: number): (write: HeldCall) => number | undefined {
  let writes = 0;
  return () => (++writes % every === 0 ? ms : undefined);
}
