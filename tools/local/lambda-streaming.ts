// The parts of the Lambda Node.js runtime's `awslambda` global that streamed handlers use, framed
// as the real runtime frames them: `HttpResponseStream.from` marks the stream with the HTTP
// integration content type and, before the first body byte, writes the prelude (status and
// headers) as JSON followed by 8 NUL bytes. The local gateway parses that back, as API Gateway
// does, so a prelude the runtime could not frame fails here too.
import { Writable } from 'node:stream';

export interface ResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string | number | boolean>;
  multiValueHeaders?: Record<string, (string | number | boolean)[]>;
  cookies?: string[];
}

/** The content type the runtime gives a stream that starts with a prelude. */
export const PRELUDE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';
const DELIMITER = Buffer.alloc(8);

/** What the runtime writes ahead of the body: the prelude's JSON, then the 8-byte NUL delimiter. */
export function framePrelude(prelude: ResponsePrelude): Buffer[] {
  return [Buffer.from(JSON.stringify(prelude)), DELIMITER];
}

/** The hooks the real runtime's response stream has and `HttpResponseStream.from` uses. */
interface RuntimeStream {
  setContentType(type: string): void;
  _onBeforeFirstWrite?: (write: (chunk: Uint8Array | string) => void) => void;
}

function isRuntimeStream(stream: unknown): stream is RuntimeStream {
  return (
    typeof stream === 'object' && stream !== null && typeof (stream as RuntimeStream).setContentType === 'function'
  );
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
      if (!isRuntimeStream(stream)) throw new TypeError('HttpResponseStream.from needs a Lambda response stream');
      stream.setContentType(PRELUDE_CONTENT_TYPE);
      stream._onBeforeFirstWrite = (write) => framePrelude(prelude).forEach(write);
      return stream;
    },
  };
}

/**
 * The response stream a streamed handler writes into locally, with the real runtime's hooks.
 * Framed bytes are decoded: the prelude releases the status and headers, body bytes follow with
 * backpressure from the destination. A stream never framed (no `HttpResponseStream.from`) is all
 * body under a default prelude.
 */
export class LocalResponseStream extends Writable implements RuntimeStream {
  _onBeforeFirstWrite?: (write: (chunk: Uint8Array | string) => void) => void;
  private contentType = 'application/octet-stream';
  /** Framed bytes received before the prelude's delimiter. */
  private pending = Buffer.alloc(0);
  private started = false;
  private firstWrite = true;

  constructor(
    private readonly sink: {
      head(prelude: ResponsePrelude): void;
      /** Resolves when the destination can take more. */
      write(chunk: Buffer): Promise<void>;
      end(): void;
    },
  ) {
    super();
    // The gateway destroys this stream when the client goes away or the deadline passes, possibly
    // before the handler has piped into it. The failure reaches the handler through its own
    // writes; an 'error' event with no listener yet must not take the whole local stack down.
    this.on('error', () => undefined);
  }

  get headSent(): boolean {
    return this.started;
  }

  setContentType(type: string): void {
    this.contentType = type;
  }

  private head(prelude: ResponsePrelude): void {
    this.started = true;
    this.sink.head(prelude);
  }

  /**
   * The body bytes in raw bytes as the runtime would send them, the framing included: a framed
   * stream's prelude is split off (wherever the writes cut it), as API Gateway reads it.
   */
  private body(raw: Buffer): Buffer {
    if (this.started) return raw;
    if (this.contentType !== PRELUDE_CONTENT_TYPE) {
      this.head({});
      return raw;
    }
    this.pending = Buffer.concat([this.pending, raw]);
    const end = this.pending.indexOf(DELIMITER);
    if (end < 0) return Buffer.alloc(0);
    const prelude: unknown = JSON.parse(this.pending.subarray(0, end).toString('utf8'));
    if (typeof prelude !== 'object' || prelude === null || Array.isArray(prelude))
      throw new TypeError('The response prelude is not a JSON object');
    this.head(prelude as ResponsePrelude);
    return this.pending.subarray(end + DELIMITER.length);
  }

  private framing(): Buffer {
    if (!this.firstWrite) return Buffer.alloc(0);
    this.firstWrite = false;
    const parts: Buffer[] = [];
    this._onBeforeFirstWrite?.((chunk) => parts.push(Buffer.from(chunk)));
    return Buffer.concat(parts);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    let body: Buffer;
    try {
      // Only the first write carries the prelude; later chunks go on without a copy.
      const framing = this.framing();
      body = this.body(framing.length > 0 ? Buffer.concat([framing, chunk]) : chunk);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (body.length === 0) done();
    else this.sink.write(body).then(() => done(), done);
  }

  override _final(done: (error?: Error | null) => void): void {
    try {
      const rest = this.body(this.framing());
      if (!this.started) throw new TypeError('The response stream ended inside its prelude');
      if (rest.length > 0) {
        this.sink
          .write(rest)
          .finally(() => this.sink.end())
          .then(() => done(), done);
        return;
      }
    } catch (error) {
      done(error as Error);
      return;
    }
    this.sink.end();
    done();
  }
}
