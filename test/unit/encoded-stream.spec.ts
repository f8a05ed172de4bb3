import { brotliDecompressSync, constants, gunzipSync } from 'node:zlib';
import { encodeChunks } from '../../lib/edge/encoded-stream';
import type { ChosenCoding } from '../../lib/edge/content-coding';

const PAGES = Array.from({ length: 20 }, (_, p) =>
  Array.from({ length: 200 }, (_, i) => `{"id":${9223372036854775807n - BigInt(p * 200 + i)},"status":"pending"}`).join(
    ',',
  ),
);

async function* source(pages: readonly string[], failAfter?: number): AsyncGenerator<string> {
  for (const [i, page] of pages.entries()) {
    if (i === failAfter) throw new Error('the table went away');
    yield page;
  }
}

const DECODE: Record<ChosenCoding, (data: Buffer) => Buffer> = {
  identity: (data) => data,
  gzip: (data) => gunzipSync(data),
  br: (data) => brotliDecompressSync(data),
};

/** What a client can decode of a stream that stopped here: the flushed part, without the trailer. */
const PARTIAL: Record<ChosenCoding, (data: Buffer) => string> = {
  identity: (data) => data.toString(),
  gzip: (data) => gunzipSync(data, { finishFlush: constants.Z_SYNC_FLUSH }).toString(),
  br: (data) => brotliDecompressSync(data, { finishFlush: constants.BROTLI_OPERATION_FLUSH }).toString(),
};

describe.each(['identity', 'gzip', 'br'] as const)('encodeChunks(%s)', (coding) => {
  test('decodes to exactly the input text', async () => {
    const out: Buffer[] = [];
    for await (const chunk of encodeChunks(source(PAGES), coding)) out.push(chunk);
    expect(DECODE[coding](Buffer.concat(out)).toString()).toBe(PAGES.join(''));
  });

  test('every page is decodable as soon as it is written: nothing waits for the next page', async () => {
    const out: Buffer[] = [];
    let pages = 0;
    for await (const chunk of encodeChunks(source(PAGES), coding)) {
      out.push(chunk);
      if (pages < PAGES.length) {
        pages++;
        expect(PARTIAL[coding](Buffer.concat(out))).toBe(PAGES.slice(0, pages).join(''));
      }
    }
    expect(pages).toBe(PAGES.length);
  });

  test('a failure of the input is rethrown and the output stays unfinished', async () => {
    const out: Buffer[] = [];
    await expect(
      (async () => {
        for await (const chunk of encodeChunks(source(PAGES, 5), coding)) out.push(chunk);
      })(),
    ).rejects.toThrow('the table went away');
    expect(PARTIAL[coding](Buffer.concat(out))).toBe(PAGES.slice(0, 5).join(''));
    if (coding !== 'identity') expect(() => DECODE[coding](Buffer.concat(out))).toThrow();
  });
});

test('compression actually shrinks order JSON', async () => {
  const sizes: Record<string, number> = {};
  for (const coding of ['identity', 'gzip', 'br'] as const) {
    let bytes = 0;
    for await (const chunk of encodeChunks(source(PAGES), coding)) bytes += chunk.length;
    sizes[coding] = bytes;
  }
  expect(sizes.gzip).toBeLessThan((sizes.identity ?? 0) / 3);
  expect(sizes.br).toBeLessThan((sizes.identity ?? 0) / 3);
});
