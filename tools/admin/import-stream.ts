// Reads an `orders import` file as a stream: the top-level JSON array is split into its elements
// as the text arrives, and each element alone is parsed (losslessly, so an id beyond 2^53 keeps
// every digit). Memory holds one chunk and one element at a time, never the file: an element
// longer than any order can be, or nested deeper, is reported without being kept or parsed.

import { createReadStream } from 'node:fs';
import { parse } from 'lossless-json';
import { errorMessage } from '../shared/errors';

/** Longer than any order, even pretty-printed: an element beyond it is refused, never buffered. */
export const MAX_ELEMENT_CHARS = 64 * 1024;
/** An order is one object of plain values; anything nested deeper is refused unparsed. */
const MAX_ELEMENT_DEPTH = 8;
const READ_CHUNK_BYTES = 64 * 1024;

export type Element = { index: number; value: unknown } | { index: number; problem: string };

/** The file is not a JSON array: nothing in it can be imported. */
export class ImportSyntaxError extends Error {
  override readonly name = 'ImportSyntaxError';
}

type State = 'start' | 'first' | 'next' | 'element' | 'after' | 'end';

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const OPEN = new Set([0x7b, 0x5b]); // { [
const CLOSE = new Set([0x7d, 0x5d]); // } ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
/** What a JSON value other than an array may start with: such a file is JSON, just not an array. */
const VALUE_START = /^[{"tfn0-9-]$/;

/** Splits the text of a JSON array into its elements, chunk by chunk. */
export class ElementSplitter {
  private state: State = 'start';
  private parts: string[] = [];
  private length = 0;
  private depth = 0;
  private deepest = 0;
  private inString = false;
  private escaped = false;
  private scalar = false;
  private index = 0;
  /** Characters before the current chunk, for positions in messages. */
  private offset = 0;

  /** The elements that end in this chunk; throws ImportSyntaxError when the text is not an array. */
  feed(chunk: string): Element[] {
    const done: Element[] = [];
    let start = this.state === 'element' ? 0 : -1;
    let i = 0;
    while (i < chunk.length) {
      const c = chunk.charCodeAt(i);
      switch (this.state) {
        case 'start':
          if (i === 0 && this.offset === 0 && c === 0xfeff)
            i++; // a byte-order mark, as Windows editors write
          else if (isSpace(c)) i++;
          else if (c === OPEN_ARRAY) {
            this.state = 'first';
            i++;
          } else if (VALUE_START.test(chunk[i] ?? '')) throw new ImportSyntaxError('must be a JSON array of orders');
          else throw this.unexpected(chunk, i);
          break;
        case 'first':
        case 'next':
          if (isSpace(c)) i++;
          else if (c === CLOSE_ARRAY) {
            if (this.state === 'next') throw this.unexpected(chunk, i, 'a comma before ] (no element follows it)');
            this.state = 'end';
            i++;
          } else {
            this.begin(c);
            start = i;
            // A string or container's first character opens it; a scalar's is part of it.
            i++;
          }
          break;
        case 'element': {
          const ended = this.step(c);
          if (ended === 'before') {
            done.push(this.finish(chunk.slice(start, i)));
          } else {
            i++;
            if (ended === 'after') done.push(this.finish(chunk.slice(start, i)));
          }
          break;
        }
        case 'after':
          if (isSpace(c)) i++;
          else if (c === COMMA) {
            this.state = 'next';
            i++;
          } else if (c === CLOSE_ARRAY) {
            this.state = 'end';
            i++;
          } else throw this.unexpected(chunk, i, `, or ] after orders[${this.index - 1}]`);
          break;
        case 'end':
          if (isSpace(c)) i++;
          else throw this.unexpected(chunk, i, 'nothing after the closing ]');
          break;
      }
    }
    if (this.state === 'element') this.append(chunk.slice(start));
    this.offset += chunk.length;
    return done;
  }

  /** At the end of the file: an error unless the array was closed. */
  end(): Element[] {
    if (this.state === 'start') throw new ImportSyntaxError('not valid JSON: the file is empty');
    if (this.state !== 'end') throw new ImportSyntaxError('not valid JSON: the file ends before the closing ]');
    return [];
  }

  private begin(c: number): void {
    this.state = 'element';
    this.parts = [];
    this.length = 0;
    this.inString = c === QUOTE;
    this.escaped = false;
    this.scalar = !OPEN.has(c) && c !== QUOTE;
    this.depth = OPEN.has(c) ? 1 : 0;
    this.deepest = this.depth;
  }

  /** One character of an element: whether the element ends before it, with it, or goes on. */
  private step(c: number): 'before' | 'after' | undefined {
    if (this.scalar) return isSpace(c) || c === COMMA || c === CLOSE_ARRAY ? 'before' : undefined;
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (c === BACKSLASH) this.escaped = true;
      else if (c === QUOTE) {
        this.inString = false;
        if (this.depth === 0) return 'after';
      }
      return undefined;
    }
    if (c === QUOTE) this.inString = true;
    else if (OPEN.has(c)) this.deepest = Math.max(this.deepest, ++this.depth);
    else if (CLOSE.has(c) && --this.depth === 0) return 'after';
    return undefined;
  }

  private append(text: string): void {
    this.length += text.length;
    // Past the limit only the length is kept: the element is refused, and memory stays bounded.
    if (this.length <= MAX_ELEMENT_CHARS) this.parts.push(text);
    else this.parts = [];
  }

  private finish(tail: string): Element {
    this.append(tail);
    this.state = 'after';
    const index = this.index++;
    if (this.length > MAX_ELEMENT_CHARS) {
      return { index, problem: `is ${this.length} characters long, more than an order can be (${MAX_ELEMENT_CHARS})` };
    }
    if (this.deepest > MAX_ELEMENT_DEPTH) return { index, problem: 'must be an object' };
    const text = this.parts.join('');
    this.parts = [];
    try {
      return { index, value: parse(text) };
    } catch (error) {
      throw new ImportSyntaxError(`not valid JSON in orders[${index}]: ${errorMessage(error)}`);
    }
  }

  private unexpected(chunk: string, i: number, wanted?: string): ImportSyntaxError {
    const found = JSON.stringify(chunk[i] ?? '');
    return new ImportSyntaxError(
      `not valid JSON: unexpected ${found} at character ${this.offset + i + 1}${wanted ? `, expected ${wanted}` : ''}`,
    );
  }
}

/** The elements of the JSON array in `file`, read a chunk at a time; read errors are thrown as they come. */
export async function* fileElements(file: string, signal?: AbortSignal): AsyncGenerator<Element> {
  const splitter = new ElementSplitter();
  const stream = createReadStream(file, { encoding: 'utf8', highWaterMark: READ_CHUNK_BYTES });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      if (signal?.aborted) return;
      yield* splitter.feed(chunk);
    }
    yield* splitter.end();
  } finally {
    stream.destroy();
  }
}
