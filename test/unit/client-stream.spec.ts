import { gzipSync } from 'node:zlib';
import { isLosslessNumber, parse } from 'lossless-json';
import { arrayElements, bodyText, JsonStreamError } from '../../client/stream';

async function* from<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function elementsOf(chunks: readonly string[]): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const batch of arrayElements(from(chunks))) out.push(...batch);
  return out;
}

async function failureOf(chunks: readonly string[]): Promise<JsonStreamError> {
  try {
    await elementsOf(chunks);
  } catch (error) {
    if (error instanceof JsonStreamError) return error;
    throw error;
  }
  throw new Error('no failure');
}

// Strings holding every character that matters to a JSON tokenizer, nesting, spaces between tokens.
const TRICKY = ` [ {"id":9223372036854775807,"s":"a,b]c}d{e[\\"","n":{"x":[1,2,{"y":"]"}]}} ,{"id":-9223372036854775808,"e":"\\\\"},\n{"id":0,"u":"é€𝄞","f":1.5e3,"t":true,"z":null} ] \n`;
/** What lossless-json (the client's whole-body parser) makes of the same text: the oracle. */
const EXPECTED = parse(TRICKY) as unknown[];

test('every way of splitting the text in two gives the elements lossless-json parses, numbers exact', async () => {
  const whole = await elementsOf([TRICKY]);
  expect(whole).toEqual(EXPECTED);
  expect(EXPECTED).toHaveLength(3);
  const ids = whole.map((element) => (element as { id: unknown }).id);
  expect(ids.every(isLosslessNumber)).toBe(true);
  expect(ids.map(String)).toEqual(['9223372036854775807', '-9223372036854775808', '0']);
  for (let cut = 0; cut <= TRICKY.length; cut++) {
    expect(await elementsOf([TRICKY.slice(0, cut), TRICKY.slice(cut)])).toEqual(whole);
  }
  expect(await elementsOf([...TRICKY])).toEqual(whole);
});

test('elements come in one batch per chunk that completes them, not all at the end', async () => {
  const batches: number[] = [];
  for await (const batch of arrayElements(from(['[{"a":1},{"b":', '2},{"c":3}', ']']))) batches.push(batch.length);
  expect(batches).toEqual([1, 2]);
});

test('an empty array has no elements', async () => {
  expect(await elementsOf(['[]'])).toEqual([]);
  expect(await elementsOf([' [ ', ' ] '])).toEqual([]);
});

test('every text cut before the closing bracket is truncated, never a short list', async () => {
  const end = TRICKY.lastIndexOf(']');
  for (let cut = 0; cut <= end; cut++) {
    const failure = await failureOf([TRICKY.slice(0, cut)]);
    expect(failure.kind).toBe('truncated');
  }
});

test.each([
  ['{"id":1}'],
  ['1'],
  ['"x"'],
  ['[1,]'],
  ['[,1]'],
  ['[1,,2]'],
  ['[1] x'],
  ['[1]]'],
  ['[1][]'],
  ['[1}]'],
  ['x[1]'],
])('%p is not a JSON array', async (text) => {
  expect((await failureOf([text])).kind).toBe('malformed');
});

describe('bodyText', () => {
  const text = '[{"id":9223372036854775807,"shipDate":"é€𝄞"}]';
  const bytes = Buffer.from(text);

  async function textOf(chunks: readonly Uint8Array[]): Promise<string> {
    let out = '';
    for await (const part of bodyText(from(chunks))) out += part;
    return out;
  }

  test('decodes UTF-8 split anywhere, a byte at a time included', async () => {
    expect(await textOf([...bytes].map((b) => Uint8Array.of(b)))).toBe(text);
  });

  test('inflates a gzip body that fetch did not decode, however it is split', async () => {
    const gz = gzipSync(bytes);
    expect(await textOf([gz])).toBe(text);
    expect(await textOf([gz.subarray(0, 1), gz.subarray(1, 7), gz.subarray(7)])).toBe(text);
  });

  test('a gzip body cut before its trailer fails', async () => {
    const gz = gzipSync(Buffer.from(`[${'{"id":1},'.repeat(500)}{"id":2}]`));
    await expect(textOf([gz.subarray(0, gz.length - 12)])).rejects.toThrow(/unexpected end of file/);
  });

  test('an empty body is no text', async () => {
    expect(await textOf([])).toBe('');
  });
});
