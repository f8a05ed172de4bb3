// The client's default transport: Node's global fetch (undici), with one change. fetch inflates
// gzip itself and leniently, by design (undici, like browsers and cURL): a gzip body cut before its
// trailer (CRC-32 and length) comes out as if complete. So the transport hides a response's
// `Content-Encoding: gzip` from fetch, which then hands the bytes over as they came, and the client
// inflates them itself, strictly (stream.ts), and sees such a body as cut short. Other codings
// (br, deflate) are left to fetch. Redirects are not followed: the API sends none.
import { runInThisContext } from 'node:vm';

/** undici's dispatcher, as the global RequestInit types it (no import of undici itself). */
type Dispatcher = NonNullable<RequestInit['dispatcher']>;
type DispatchHandler = Parameters<Dispatcher['dispatch']>[1];

/** Where undici (Node's own, or a copy from npm) keeps the dispatcher every fetch uses by default. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * The dispatcher undici keeps on a realm's globalThis. Code in a realm of its own (a vm context,
 * such as jest's sandbox) calls the main realm's fetch, whose dispatcher is on the main realm's
 * globalThis, hence the second look there.
 */
const globalDispatcher = (realm: typeof globalThis) =>
  (realm as unknown as Record<symbol, Dispatcher | undefined>)[GLOBAL_DISPATCHER];

/** Whether a raw header pair is `Content-Encoding: gzip` (or the old `x-gzip`). */
function isGzipEncoding(name: Buffer, value: Buffer): boolean {
  if (name.toString('latin1').toLowerCase() !== 'content-encoding') return false;
  const coding = value.toString('latin1').trim().toLowerCase();
  return coding === 'gzip' || coding === 'x-gzip';
}

/** fetch's handler, seeing the response's headers without a gzip Content-Encoding. */
function withoutGzipEncoding(handler: DispatchHandler): DispatchHandler {
  const { onHeaders } = handler;
  if (onHeaders === undefined) return handler;
  // A prototype link rather than a copy: fetch's handler keeps its state on `this`.
  const wrapped = Object.create(handler) as DispatchHandler;
  wrapped.onHeaders = function (this: DispatchHandler, status, rawHeaders, resume, statusText) {
    const headers: Buffer[] = [];
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const [name, value] = [rawHeaders[i] as Buffer, rawHeaders[i + 1] as Buffer];
      if (!isGzipEncoding(name, value)) headers.push(name, value);
    }
    return onHeaders.call(this, status, headers, resume, statusText);
  };
  return wrapped;
}

/**
 * Sends through whatever dispatcher fetch would use (Node's default agent, or the one a caller set
 * with undici's setGlobalDispatcher, such as a proxy), read at each request: Node creates its
 * default only when fetch is first called.
 */
const gzipPassThrough = {
  dispatch(options: Parameters<Dispatcher['dispatch']>[0], handler: DispatchHandler): boolean {
    const dispatcher = fetchDispatcher();
    if (dispatcher === undefined) throw new Error('fetch has no global dispatcher');
    return dispatcher.dispatch(options, withoutGzipEncoding(handler));
  },
} as unknown as Dispatcher;

/** The dispatcher fetch sends through: the one on this realm, or on the main realm (see above). */
const fetchDispatcher = (): Dispatcher | undefined =>
  globalDispatcher(globalThis) ?? globalDispatcher(runInThisContext('globalThis') as typeof globalThis);

/** The variables that name a proxy, as Node's fetch reads them once told to (lower case first). */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;

/**
 * Why the client will not send as the environment asks, or undefined. Node's fetch ignores the proxy
 * variables unless Node is started with NODE_USE_ENV_PROXY=1 or --use-env-proxy (Node 22.21 or
 * later): then its dispatcher is an EnvHttpProxyAgent, which honours them and NO_PROXY. Going
 * straight to the server past a proxy the user set would be silent, so the client refuses instead,
 * unless the dispatcher is someone's choice rather than Node's plain default (undici's `Agent`; Node
 * does not export undici's classes, hence the name). `dispatcher` is for tests.
 */
export function proxyRefusal(
  env: Readonly<Record<string, string | undefined>>,
  dispatcher: object | undefined = fetchDispatcher(),
): string | undefined {
  const set = PROXY_VARIABLES.filter((name) => (env[name] ?? '') !== '');
  if (set.length === 0 || (dispatcher !== undefined && dispatcher.constructor.name !== 'Agent')) return undefined;
  const named = set.join(' and ');
  return (
    `${named} ${set.length > 1 ? 'are' : 'is'} set, but Node's fetch ignores proxy variables unless Node is started ` +
    `with NODE_USE_ENV_PROXY=1 (Node 22.21 or later): set NODE_USE_ENV_PROXY=1 to go through the proxy ` +
    `(NO_PROXY then applies too), or unset ${named} to connect directly`
  );
}

/** The global fetch, passing gzip bodies through undecoded and not following redirects. */
export const rawFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, redirect: 'manual', dispatcher: gzipPassThrough });
