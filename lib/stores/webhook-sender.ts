// One delivery attempt on the wire: a POST of the signed event to an address the destination check
// just returned (lib/stores/webhook-destinations.ts), never to a second lookup of the name, which
// could answer otherwise (DNS rebinding). node:https connects to that address through a `lookup`
// that answers with it, and keeps the URL's host for the Host header, TLS's server name (SNI) and
// the certificate's check. Redirects are never followed (node:http follows none): a 3xx is the
// receiver's answer, a failure. The attempt is cut at its timeout, or when its signal aborts.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { REAL_TIMERS, type Timers } from '../commons/timers';

/** What the service says it is, to receivers' logs. */
export const WEBHOOK_USER_AGENT = 'StoreOrders-Webhooks/1.0';

export interface WebhookPost {
  /** The checked URL (WHATWG-serialised). */
  url: string;
  /** The address to connect to: one of those the check resolved the host to and accepted. */
  address: string;
  /** The signed Standard Webhooks headers. */
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** What the attempt came to: the receiver's status, or why there was none. Latency on the given timers. */
export type PostOutcome = { status: number; latencyMs: number } | { error: string; latencyMs: number };

/** A lookup that answers every name with the one address given, in whichever form the caller asks. */
export function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address) === 6 ? 6 : 4;
  return (_hostname, options, callback) => {
    if (options.all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function describe(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : String(error);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** POSTs the event to the pinned address; resolves (never rejects) with the status or the failure. */
export function postWebhook(post: WebhookPost, timers: Timers = REAL_TIMERS): Promise<PostOutcome> {
  const url = new URL(post.url);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const started = timers.now();
  const latency = () => timers.now() - started;
  return new Promise<PostOutcome>((resolve) => {
    let done = false;
    const finish = (outcome: PostOutcome) => {
      if (done) return;
      done = true;
      stop();
      post.signal?.removeEventListener('abort', onAbort);
      request.destroy();
      resolve(outcome);
    };
    const options = {
      method: 'POST',
      hostname,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(post.body)),
        'user-agent': WEBHOOK_USER_AGENT,
        ...post.headers,
      },
      // One connection per attempt, to the address checked for it: no pooled socket to another address.
      agent: false,
      // A name resolves to the checked address only; an address literal is connected to as it is.
      ...(isIP(hostname) === 0 ? { lookup: pinnedLookup(post.address) } : {}),
    } as const;
    const request =
      url.protocol === 'https:'
        ? httpsRequest({ ...options, servername: isIP(hostname) === 0 ? hostname : undefined })
        : httpRequest(options);
    request.on('response', (response: IncomingMessage) => {
      // The status is the answer; the body is not read (a receiver cannot hold the worker with it).
      finish({ status: response.statusCode ?? 0, latencyMs: latency() });
    });
    request.on('error', (error) => finish({ error: describe(error), latencyMs: latency() }));
    const stop = timers.after(post.timeoutMs, () =>
      finish({ error: `no answer within ${post.timeoutMs / 1000} s`, latencyMs: latency() }),
    );
    const onAbort = () =>
      finish({ error: 'the attempt had to end (its lease or invocation was running out)', latencyMs: latency() });
    if (post.signal?.aborted) return onAbort();
    post.signal?.addEventListener('abort', onAbort, { once: true });
    request.end(post.body);
  });
}
