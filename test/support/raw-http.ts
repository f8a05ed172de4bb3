import { connect } from 'node:net';
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The body as received, for bodies that are not text (a compressed stream). */
  bytes: Buffer;
  /** False when the connection was cut after the head: a stream that failed part way. */
  complete: boolean;
}

export interface RawRequestOptions {
  headers?: Record<string, string>;
  agent?: Agent;
  /** A guard against a hang, far beyond anything a test expects; not a timing assertion. */
  timeoutMs?: number;
  /** The address the connection is made from (any 127.x.y.z on Linux loopback): another client. */
  localAddress?: string;
}

/**
 * One HTTP request with the path sent exactly as given. fetch would normalise it first (`.` and
 * `..` segments, `%2e`), so fuzzed ids would not reach the gateway as written.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: RawRequestOptions = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        headers: options.headers ?? {},
        agent: options.agent ?? false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        const settle = (complete: boolean) => {
          const bytes = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: bytes.toString('utf8'), bytes, complete });
        };
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', () => settle(false));
        res.on('end', () => settle(res.complete));
      },
    );
    req.setTimeout(options.timeoutMs ?? 60_000, () => req.destroy(new Error(`${method} ${path}: no answer`)));
    req.on('error', reject);
    req.end();
  });
}

/** A header's single value (node joins repeated ones). */
export function headerOf(response: RawResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(', ') : value;
}

/**
 * Writes the bytes exactly as given on a new connection and reads until the server closes it: for
 * requests no HTTP client would send (broken framing, no Host, pipelining).
 */
export function rawExchange(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (data += chunk));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
}
