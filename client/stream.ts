// Reading a JSON array as it arrives: the bytes of a (possibly gzip-compressed) body become its
// elements, batch by batch, so a consumer holds one network chunk at a time however long the array
// is. Free of the client's types, so it is tested on its own.
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { LosslessNumber } from 'lossless-json';

/** Why a streamed array could not be read: it stopped before its end, or it is not a JSON array. */
export class JsonStreamError extends Error {
  override readonly name = 'JsonStreamError';
  readonly kind: 'truncated' | 'malformed';

  constructor(kind: 'truncated' | 'malformed', message: string) {
    super(message);
    this.kind = kind;
  }
}

const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** Runs a wait on the network under the caller's limits (a timeout, an abort). */
export type Watch = <T>(waiting: Promise<T>) => Promise<T>;

/**
 * The chunks of a fetch body; leaving early cancels the body, so the connection is released. Each
 * read is watched on its own, so a consumer that takes its time between chunks is not timed out.
 */
export async function* bodyChunks(
  body: ReadableStream<Uint8Array> | null,
  watch: Watch = (waiting) => waiting,
): AsyncGenerator<Uint8Array> {
  if (body === null) return;
  const reader = body.getReader();
  let done = false;
  try {
    for (;;) {
      const next = await watch(reader.read());
      if (next.done) {
        done = true;
        return;
      }
      yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
  }
}

/**
 * The body as text. The client's own transport passes gzip bytes on as they came (the global fetch
 * decodes them itself): recognised by their magic number, which a JSON text can never start with,
 * and inflated here, strictly. A gzip stream cut before its trailer ends in a `truncated` error,
 * one that is not gzip in a `malformed` one; a failure of the connection passes through as it is.
 */
export async function* bodyText(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const iterator = chunks[Symbol.asyncIterator]();
  let head: Uint8Array = new Uint8Array(0);
  let ended = false;
  while (head.length < GZIP_MAGIC.length) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    head = head.length === 0 ? next.value : Buffer.concat([head, next.value]);
  }
  async function* rest(): AsyncGenerator<Uint8Array> {
    if (head.length) yield head;
    if (ended) return;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  }
  const gzipped = head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
  const bytes: AsyncIterable<Uint8Array> = gzipped
    ? pipeline(Readable.from(rest()), createGunzip(), () => undefined)
    : rest();
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of bytes) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) yield text;
    }
  } catch (error) {
    throw gzipFailure(error) ?? error;
  }
  const tail = decoder.decode();
  if (tail) yield tail;
}

/** zlib's own failures, by their codes: Z_BUF_ERROR is input that ended before the stream did. */
function gzipFailure(error: unknown): JsonStreamError | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !code.startsWith('Z_')) return undefined;
  const message = (error as { message?: unknown }).message;
  return code === 'Z_BUF_ERROR'
    ? new JsonStreamError('truncated', `The gzip body ended before its trailer (${String(message)})`)
    : new JsonStreamError('malformed', `The gzip body is corrupt (${String(message)})`);
}

/** Numbers stay their JSON digits (lossless-json's LosslessNumber), never a rounded double. */
class LosslessTokenizer extends Tokenizer {
  protected override parseNumber(numberStr: string): number {
    // The declared return type is the library's default; the token parser only passes values on.
    return new LosslessNumber(numberStr) as unknown as number;
  }
}

/**
 * The elements of a JSON array, parsed by @streamparser/json as the text arrives, numbers as
 * LosslessNumber: in batches, one per text chunk that completes an element, so a consumer holds
 * one chunk's elements at a time however long the array is. Ends with a `truncated` error when the
 * text stops before the array's closing bracket, `malformed` when it is not one JSON array.
 */
export async function* arrayElements(texts: AsyncIterable<string>): AsyncGenerator<unknown[]> {
  const tokenizer = new LosslessTokenizer();
  // `$.*`: only the array's elements are handed over, and none is kept once it has been.
  const parser = new TokenParser({ paths: ['$.*'], keepStack: false });
  let batch: unknown[] = [];
  let opened = false;
  let closed = false;
  let elements = 0;
  const malformed = (what: string) => new JsonStreamError('malformed', `The order list is not a JSON array: ${what}`);
  tokenizer.onToken = (token) => {
    if (!opened && token.token !== TokenType.LEFT_BRACKET) throw malformed('it does not start with [');
    opened = true;
    parser.write(token);
  };
  parser.onValue = ({ value }) => {
    elements++;
    batch.push(value);
  };
  parser.onEnd = () => {
    closed = true;
  };
  for await (const text of texts) {
    try {
      tokenizer.write(text);
    } catch (error) {
      throw error instanceof JsonStreamError ? error : malformed(messageOf(error));
    }
    if (batch.length) yield batch;
    batch = [];
  }
  try {
    // Hands over a number the text ended on, or fails in the middle of a string or literal.
    tokenizer.end();
  } catch (error) {
    if (error instanceof JsonStreamError) throw error;
    closed = false;
  }
  if (!closed) {
    throw new JsonStreamError(
      'truncated',
      `The order list ended before its closing ] (after ${elements - batch.length} complete orders)`,
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
