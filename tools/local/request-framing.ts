// How the local gateway receives a request: the body within API Gateway's payload limit, the time
// allowed to send it, and the Error body for requests node cannot parse. Every way a request can
// fail to arrive whole ends with the connection closed: a client that stops half way (a declared
// length it never sends, a chunk size that overflows, a half-close) never holds a socket.

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerOptions, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorJson } from '../../lib/contract/errors';
import type { FunctionId, FunctionSettings } from '../../lib/contract/deployment';

/** API Gateway REST's largest request payload; a larger one is refused before any integration. */
export const MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;
/**
 * How much of an oversized body is read and dropped so the client sees the 400 before the close.
 * A declared length beyond it is refused at once, without waiting for the body.
 */
const MAX_DISCARDED_BYTES = 4 * MAX_PAYLOAD_BYTES;

export const PAYLOAD_TOO_LARGE_MESSAGE = 'The request payload is larger than 10 MB.';

/**
 * How long a client may take to send a request, as node's server options; a slow one gets the Error
 * body and its connection closed. Node checks them every `connectionsCheckingInterval`, so a limit
 * may be passed by that much.
 */
export type ReceiveLimits = Required<
  Pick<ServerOptions, 'headersTimeout' | 'requestTimeout' | 'keepAliveTimeout' | 'connectionsCheckingInterval'>
>;

export const RECEIVE_LIMITS: ReceiveLimits = {
  /** From the first byte of a request to the end of its headers. */
  headersTimeout: 20_000,
  /** From the first byte to the end of the body: 10 MB at about 175 kB/s. */
  requestTimeout: 60_000,
  /** How long an idle keep-alive connection stays open between requests (node's default). */
  keepAliveTimeout: 5_000,
  connectionsCheckingInterval: 5_000,
};

/**
 * The longest a connection may see no byte either way: the authorizer and the slowest function,
 * each to its deadline, and a margin. Beyond it the socket is closed (a client that stopped
 * reading a streamed listing, for instance).
 */
export function idleTimeoutMs(functions: Record<FunctionId, FunctionSettings>, limits: ReceiveLimits): number {
  const { authorizer, ...routes } = functions;
  const slowest = Math.max(...Object.values(routes).map((f) => f.timeoutSeconds));
  return (authorizer.timeoutSeconds + slowest) * 1000 + limits.keepAliveTimeout;
}

/** A refused body's message is the Error body's; undefined gives the catalogue's BAD_REQUEST message. */
export type Body = { ok: true; bytes: Buffer } | { ok: false; message: string | undefined };

/** What went wrong with a request node could not parse, in the words of the Error body. */
function framingMessage(error: NodeJS.ErrnoException, hasRequest: boolean, limits: ReceiveLimits): string | undefined {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'The request headers are too large.';
    case 'HPE_INVALID_CHUNK_SIZE':
      return 'The request has an invalid chunk size.';
    case 'HPE_INVALID_EOF_STATE':
      return hasRequest ? 'The request body ended before its declared length.' : 'The request ended part way.';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return hasRequest
        ? `The request was not received in full within ${limits.requestTimeout / 1000} s.`
        : `The request headers were not received within ${limits.headersTimeout / 1000} s.`;
    default:
      return undefined;
  }
}

function declaredLength(req: IncomingMessage): number | undefined {
  const value = req.headers['content-length'];
  return value !== undefined && /^[0-9]+$/.test(value) ? Number(value) : undefined;
}

/**
 * Whether the request node could not parse is a HEAD, from the bytes it failed on: the answer to a
 * HEAD has no body (RFC 9110 §9.3.2), or a client reads the body as the next response.
 */
function isHead(error: NodeJS.ErrnoException & { rawPacket?: unknown }): boolean {
  return Buffer.isBuffer(error.rawPacket) && error.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/**
 * Requests node cannot even parse (oversized headers, broken framing, a body that never comes)
 * still get the Error body, as API Gateway's own 4xx would, instead of node's bare status line or
 * silence. A failure inside a body belongs to the request being received, which answers it; one
 * between requests is answered here. On a pipelined connection the refusal waits for the responses
 * already in flight, so an earlier request's answer is never lost to a later malformed one.
 */
export class RequestFraming {
  private readonly inFlight = new WeakMap<Duplex, number>();
  private readonly deferred = new WeakMap<Duplex, () => void>();
  /** The body being received on a socket, told here when node finds its framing broken. */
  private readonly receiving = new WeakMap<
    Duplex,
    { req: IncomingMessage; fail: (error: NodeJS.ErrnoException) => void }
  >();
  private readonly answered = new WeakSet<Duplex>();

  constructor(private readonly limits: ReceiveLimits = RECEIVE_LIMITS) {}

  track(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.inFlight.set(socket, (this.inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (this.inFlight.get(socket) ?? 1) - 1;
      this.inFlight.set(socket, left);
      if (left === 0) this.deferred.get(socket)?.();
    });
  }

  /**
   * The body up to the payload limit; past it the rest is dropped (within bounds) and refused, as is a
   * body that ends early, breaks its framing or is too slow (the answer then closes the connection).
   */
  readBody(req: IncomingMessage): Promise<Body> {
    const socket = req.socket;
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const tooLarge = () => size > MAX_PAYLOAD_BYTES || (declaredLength(req) ?? 0) > MAX_PAYLOAD_BYTES;
      const settle = (body: Body) => {
        if (this.receiving.get(socket)?.req === req) this.receiving.delete(socket);
        req.removeListener('data', onData);
        resolve(body);
      };
      const refuse = (message: string | undefined) =>
        settle({ ok: false, message: tooLarge() ? PAYLOAD_TOO_LARGE_MESSAGE : message });
      const fail = (error: NodeJS.ErrnoException) => refuse(framingMessage(error, true, this.limits));
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_PAYLOAD_BYTES) chunks.push(chunk);
        else if (size > MAX_DISCARDED_BYTES) refuse(undefined);
      };
      if ((declaredLength(req) ?? 0) > MAX_DISCARDED_BYTES) {
        refuse(undefined);
        return;
      }
      this.receiving.set(socket, { req, fail });
      req.on('data', onData);
      req.on('end', () => (tooLarge() ? refuse(undefined) : settle({ ok: true, bytes: Buffer.concat(chunks) })));
      req.on('error', () => refuse('The request was not received in full.'));
    });
  }

  /** Node's `clientError`: the request cannot be parsed or did not arrive in time. */
  answer(error: NodeJS.ErrnoException, socket: Duplex): void {
    if (this.answered.has(socket)) return;
    this.answered.add(socket);
    // Node parses a pipelined buffer at once: the body before this error may be complete, its
    // `end` event not yet emitted. Only a body still incomplete is the broken one.
    const body = this.receiving.get(socket);
    if (body && !body.req.complete) {
      body.fail(error);
      return;
    }
    const send = () => {
      this.deferred.delete(socket);
      if (!socket.writable) {
        socket.destroy();
        return;
      }
      const payload = errorJson('BAD_REQUEST', framingMessage(error, false, this.limits));
      socket.end(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(payload)}\r\n` +
          `X-Amzn-RequestId: ${randomUUID()}\r\nConnection: close\r\n\r\n${isHead(error) ? '' : payload}`,
      );
      // A client that never reads the answer (or never closes) must not keep the socket.
      socket.once('finish', () => socket.destroy());
    };
    if ((this.inFlight.get(socket) ?? 0) > 0) this.deferred.set(socket, send);
    else send();
  }
}
