// The parts of the Lambda Node.js runtime's `awslambda` global that streamed handlers use:
// `streamifyResponse` marks the handler, and `HttpResponseStream.from` attaches the status and
// headers (the "prelude") that must go out before the first body byte. The real runtime encodes
// the prelude into the stream; locally it is handed to the gateway directly.

import { Writable } from 'node:stream';

export interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  cookies?: string[];
}

interface PreludeSink {
  setPrelude(prelude: ResponsePrelude): void;
}

function hasPreludeSink(stream: unknown): stream is PreludeSink {
  return typeof stream === 'object' && stream !== null && typeof (stream as PreludeSink).setPrelude === 'function';
}

interface AwsLambdaGlobal {
  streamifyResponse<T>(handler: T): T;
  HttpResponseStream: { from<S>(stream: S, prelude: ResponsePrelude): S };
}

/**
 * Installs the local `awslambda` members unless a real runtime provides them; call before
 * handlers are made. Member by member, because other packages (the invoke store) create the
 * global with only their own member.
 */
export function installLocalLambdaRuntime(): void {
  const scope = globalThis as { awslambda?: Partial<AwsLambdaGlobal> };
  const runtime = (scope.awslambda ??= {});
  runtime.streamifyResponse ??= (handler) => handler;
  runtime.HttpResponseStream ??= {
    from: (stream, prelude) => {
      if (hasPreludeSink(stream)) stream.setPrelude(prelude);
      return stream;
    },
  };
}

/**
 * The response stream a streamed handler writes into locally. The first write (middy writes an
 * empty one right after the prelude) releases the status and headers; body bytes follow with
 * backpressure from the destination.
 */
export class LocalResponseStream extends Writable implements PreludeSink {
  private prelude: ResponsePrelude = {};
  private started = false;

  constructor(
    private readonly sink: {
      head(prelude: ResponsePrelude): void;
      write(chunk: Buffer, done: (error?: Error | null) => void): void;
      end(): void;
    },
  ) {
    super();
    // The gateway destroys this stream when the client goes away, possibly before the handler has
    // piped into it. The failure reaches the handler through its own writes; an 'error' event
    // with no listener yet must not take the whole local stack down.
    this.on('error', () => undefined);
  }

  get headSent(): boolean {
    return this.started;
  }

  setPrelude(prelude: ResponsePrelude): void {
    this.prelude = prelude;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.sink.head(this.prelude);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    this.start();
    if (chunk.length === 0) done();
    else this.sink.write(chunk, done);
  }

  override _final(done: (error?: Error | null) => void): void {
    this.start();
    this.sink.end();
    done();
  }
}
