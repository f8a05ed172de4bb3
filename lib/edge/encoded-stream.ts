import {
  brotliCompressSync,
  constants,
  createBrotliCompress,
  createGzip,
  gzipSync,
  type BrotliOptions,
  type ZlibOptions,
} from 'node:zlib';
import type { ContentCoding } from '../contract/headers';
import type { ChosenCoding } from './content-coding';

/**
 * The fastest setting of each coding: a listing is bound by CPU and by Lambda's streaming
 * bandwidth, and on order JSON the fastest levels keep most of the ratio (see README, budget).
 * A v2 page (lib/edge/encoded-body.ts) is compressed whole with the same settings: on a page of
 * 1,000 orders gzip 1 keeps 5.2x of gzip 6's 5.9x, in two thirds of its CPU.
 */
const GZIP: ZlibOptions = { level: 1 };
/**
 * The streamed listing's gzip: level 3, whose matching (still deflate's fast one, without lazy
 * matches) writes the orders of the bench 8 % smaller than level 1 (28.5 bytes an order, brotli 1's
 * size) for about a tenth more of zlib's CPU. A large listing is bound by Lambda's 2 MB/s once its
 * JSON is written fast (docs/design.md#what-memory-buys-a-listing): fewer bytes are what shorten it,
 * and egress is the listing's largest cost.
 */
const LISTING_GZIP: ZlibOptions = { level: 3 };
const BROTLI: BrotliOptions = {
  params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
};
const ENCODERS = {
  gzip: { make: () => createGzip(LISTING_GZIP), flush: constants.Z_SYNC_FLUSH },
  br: { make: () => createBrotliCompress(BROTLI), flush: constants.BROTLI_OPERATION_FLUSH },
} as const;

/** A whole body in a coding, at once: for a buffered response. */
export function encodeWhole(body: string, coding: ContentCoding): Buffer {
  return coding === 'gzip' ? gzipSync(body, GZIP) : brotliCompressSync(body, BROTLI);
}

/**
 * The chunks in the chosen coding. Each input chunk (a Scan page) is flushed before the next is
 * read, so whatever has been read is decodable at once: the first page is not held back to fill
 * a compression window. A failure of the input destroys the encoder and is rethrown, so the
 * encoded stream ends without its trailer and decodes to a cut text, never to a finished one.
 */
export async function* encodeChunks(
  chunks: AsyncIterable<string | Buffer>,
  coding: ChosenCoding,
): AsyncGenerator<Buffer> {
  if (coding === 'identity') {
    for await (const chunk of chunks) yield typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    return;
  }
  const { make, flush } = ENCODERS[coding];
  const encoder = make();
  const out: Buffer[] = [];
  encoder.on('data', (data: Buffer) => out.push(data));
  const failed = new Promise<never>((_, reject) => encoder.once('error', reject));
  failed.catch(() => undefined);
  const drained = () => (out.length ? Buffer.concat(out.splice(0)) : undefined);
  try {
    for await (const chunk of chunks) {
      encoder.write(chunk);
      await Promise.race([new Promise<void>((resolve) => encoder.flush(flush, () => resolve())), failed]);
      const encoded = drained();
      if (encoded) yield encoded;
    }
    // The trailer is all emitted once the readable side ends ('finish' can come before it).
    const ended = new Promise<void>((resolve) => encoder.once('end', () => resolve()));
    encoder.end();
    await Promise.race([ended, failed]);
    const rest = drained();
    if (rest) yield rest;
  } finally {
    encoder.destroy();
  }
}
