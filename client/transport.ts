// The client's default transport: a fetch over node:http(s) that hands the body over exactly as it
// came, compressed or not. The global fetch (undici) inflates gzip itself and leniently: a gzip
// body cut before its trailer (CRC-32 and length) comes out as if complete. The client inflates
// the raw bytes itself, strictly, and so sees such a body as cut short.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';

/** Statuses whose Response must have no body (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * fetch's signature and failure shape (a `TypeError('fetch failed')` with the cause attached), for
 * what the client sends: a method, headers and a signal, no request body, no redirects.
 */
export const rawFetch: typeof fetch = (input, init) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const request = send(url, { method: init?.method ?? 'GET', headers, signal: init?.signal ?? undefined }, (res) => {
      try {
        resolve(toResponse(res));
      } catch (cause) {
        res.destroy();
        reject(new TypeError('fetch failed', { cause }));
      }
    });
    request.on('error', (cause) => reject(new TypeError('fetch failed', { cause })));
    request.end();
  });

function toResponse(res: IncomingMessage): Response {
  const status = res.statusCode ?? 0;
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
  }
  if (NULL_BODY_STATUSES.has(status)) {
    res.resume();
    return new Response(null, { status, statusText: res.statusMessage ?? '', headers });
  }
  const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
  return new Response(body, { status, statusText: res.statusMessage ?? '', headers });
}
