// Reading a JSON array as it arrives: the bytes of a (possibly gzip-compressed) body become the
// text of each element, batch by batch, so a consumer holds one network chunk at a time however
// long the array is. Free of the client's types, so it is tested on its own.
import { pipeline, Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

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

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The text of each element of a JSON array, in batches (one per text chunk that completes an
 * element). Only the element boundaries are found here (strings, escapes and nesting are
 * followed); each element is parsed by the caller. Ends with a `truncated` error when the text
 * stops before the array's closing bracket, `malformed` when it is not one JSON array.
 */
export async function* arrayElementBatches(texts: AsyncIterable<string>): AsyncGenerator<string[]> {
  let state: 'before' | 'inside' | 'after' = 'before';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let carried = '';
  let elements = 0;
  let closed = false;
  const malformed = (what: string) => new JsonStreamError('malformed', `The order list is not a JSON array: ${what}`);
  for await (const text of texts) {
    const batch: string[] = [];
    let start = 0;
    const take = (end: number, last: boolean) => {
      const element = carried + text.slice(start, end);
      carried = '';
      start = end + 1;
      if (element.trim() === '') {
        if (!last || elements > 0) throw malformed('an empty element');
        return;
      }
      elements++;
      batch.push(element);
    };
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (state !== 'inside') {
        if (state === 'before' && c === 0x5b) {
          state = 'inside';
          start = i + 1;
        } else if (!isSpace(c)) {
          throw malformed(state === 'before' ? 'it does not start with [' : 'text after the closing ]');
        }
      } else if (inString) {
        if (escaped) escaped = false;
        else if (c === BACKSLASH) escaped = true;
        else if (c === QUOTE) inString = false;
      } else if (c === QUOTE) {
        inString = true;
      } else if (c === 0x7b || c === 0x5b) {
        depth++;
      } else if (c === 0x7d || c === 0x5d) {
        if (depth > 0) depth--;
        else if (c === 0x5d) {
          take(i, true);
          state = 'after';
          closed = true;
        } else throw malformed('an unbalanced }');
      } else if (c === 0x2c && depth === 0) {
        take(i, false);
      }
    }
    if (state === 'inside') carried += text.slice(start);
    if (batch.length) yield batch;
  }
  if (!closed) {
    throw new JsonStreamError(
      'truncated',
      `The order list ended before its closing ] (after ${elements} complete orders)`,
    );
  }
}
