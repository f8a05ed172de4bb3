// Reads the JSON array of an import file as it streams: @streamparser/json emits each element of
// the top-level array as it completes, with every number as lossless-json's LosslessNumber (the
// tokenizer's own hook for number parsing), so an id beyond 2^53 keeps every digit. Memory holds
// one chunk and one element, never the file. What the parser does not refuse itself is checked
// here, on its tokens: a key given twice (JSON.parse would keep the last silently), and an element
// longer or deeper than any order can be, which is reported as a problem of that element. Pure:
// the caller reads the file and feeds it in.

import { Tokenizer, TokenParser, TokenType, type ParsedTokenInfo } from '@streamparser/json';
import { LosslessNumber } from 'lossless-json';
import { shownInput } from '../shared/shown-input';

/** Longer than any order, even pretty-printed: an element beyond it is refused. */
export const MAX_ELEMENT_CHARS = 64 * 1024;
/** An order is one object of plain values; anything nested deeper is refused. */
const MAX_ELEMENT_DEPTH = 8;

export type Element = { index: number; value: unknown } | { index: number; problem: string };

/** What the file's elements are, in the messages: `orders import` and `pets import` share this reader. */
export interface ImportNoun {
  one: string;
  many: string;
}
export const ORDER_NOUN: ImportNoun = { one: 'order', many: 'orders' };

/** The file is not a JSON array: nothing in it can be imported. */
export class ImportSyntaxError extends Error {
  override readonly name = 'ImportSyntaxError';
}

class LosslessTokenizer extends Tokenizer {
  // The parser only stores the value; its declared type is the library's default, a number.
  protected override parseNumber(text: string): number {
    return new LosslessNumber(text) as unknown as number;
  }
}

const OPENING = new Set([TokenType.LEFT_BRACE, TokenType.LEFT_BRACKET]);
const CLOSING = new Set([TokenType.RIGHT_BRACE, TokenType.RIGHT_BRACKET]);

/** The elements of a JSON array fed to it chunk by chunk. */
export class ElementReader {
  private readonly tokenizer = new LosslessTokenizer();
  private readonly parser = new TokenParser({ paths: ['$.*'], keepStack: false });
  private readonly done: Element[] = [];
  /** Per open container, outermost first: an object's keys so far, undefined for an array. */
  private readonly open: (Set<string> | undefined)[] = [];
  private expectKey = false;
  private previous: TokenType | undefined;
  private closed = false;
  private index = 0;
  /** The current element: where it starts (bytes), ends when known, its depth, its parsed value. */
  private element: { start: number; end?: number; deepest: number; value?: unknown } | undefined;

  constructor(private readonly noun: ImportNoun = ORDER_NOUN) {
    this.tokenizer.onToken = (token) => this.token(token);
    this.tokenizer.onError = (error) => {
      throw this.syntaxError(error);
    };
    this.parser.onError = this.tokenizer.onError;
    this.parser.onValue = ({ value }) => {
      if (this.element) this.element.value = value;
    };
  }

  /** The elements that end in this chunk; throws ImportSyntaxError when the text is not an array. */
  feed(chunk: Uint8Array | string): Element[] {
    // Bytes in this realm's Uint8Array (a Buffer may be another's, as under jest): only then does the
    // tokenizer skip a byte-order mark, as Windows editors write. A view, not a copy: Uint8Array.from
    // copied byte by byte, most of an import's time; the tokenizer decodes what it keeps at once.
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.tokenizer.write(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    return this.done.splice(0);
  }

  /** At the end of the file: an error unless the array was closed. */
  end(): Element[] {
    this.tokenizer.end();
    if (this.previous === undefined) throw new ImportSyntaxError('not valid JSON: the file is empty');
    if (!this.closed) throw new ImportSyntaxError('not valid JSON: the file ends before the closing ]');
    return this.done.splice(0);
  }

  private token(token: ParsedTokenInfo): void {
    const { token: type, offset } = token;
    const depth = this.open.length;
    if (this.previous === undefined && type !== TokenType.LEFT_BRACKET) {
      throw new ImportSyntaxError(`must be a JSON array of ${this.noun.many}`);
    }
    if (depth === 1 && (type === TokenType.COMMA || type === TokenType.RIGHT_BRACKET)) {
      if (this.element) this.finish(offset);
      else if (this.previous === TokenType.COMMA) throw this.syntaxError('a comma before ] (no element follows it)');
    } else if (depth === 1) {
      if (this.element) throw this.syntaxError(`expected , or ] after ${this.noun.many}[${this.index}]`);
      this.element = { start: offset, deepest: 0 };
    }
    this.track(type, token.value, offset);
    this.previous = type;
    this.parser.write(token);
  }

  /** Nesting, and the keys of each open object, from the tokens as they pass. */
  private track(type: TokenType, value: unknown, offset: number): void {
    if (OPENING.has(type)) {
      this.open.push(type === TokenType.LEFT_BRACE ? new Set() : undefined);
      this.expectKey = type === TokenType.LEFT_BRACE;
      if (this.element) this.element.deepest = Math.max(this.element.deepest, this.open.length - 1);
    } else if (CLOSING.has(type)) {
      this.open.pop();
      this.expectKey = false;
      if (this.open.length === 1 && this.element) this.element.end = offset + 1;
      if (this.open.length === 0) this.closed = true;
    } else if (type === TokenType.COMMA) {
      this.expectKey = this.open.at(-1) !== undefined;
    } else if (this.expectKey && type === TokenType.STRING) {
      const keys = this.open.at(-1);
      if (keys?.has(String(value))) throw this.syntaxError(`the key "${shownInput(String(value))}" is given twice`);
      keys?.add(String(value));
      this.expectKey = false;
    }
  }

  private finish(delimiter: number): void {
    const { start, end = delimiter, deepest, value } = this.element ?? { start: delimiter, deepest: 0 };
    this.element = undefined;
    const index = this.index++;
    const length = end - start;
    if (length > MAX_ELEMENT_CHARS) {
      this.done.push({
        index,
        problem: `is ${length} characters long, more than ${article(this.noun.one)} can be (${MAX_ELEMENT_CHARS})`,
      });
    } else if (deepest > MAX_ELEMENT_DEPTH) this.done.push({ index, problem: 'must be an object' });
    else this.done.push({ index, value });
  }

  /** A parser's complaint, or one of ours, said where it happened: in an element, or around them. */
  private syntaxError(problem: unknown): ImportSyntaxError {
    if (problem instanceof ImportSyntaxError) return problem;
    const message =
      typeof problem === 'string' ? problem : ((problem as Error | undefined)?.message ?? String(problem));
    if (this.closed) return new ImportSyntaxError('not valid JSON: nothing after the closing ]');
    if (this.element) return new ImportSyntaxError(`not valid JSON in ${this.noun.many}[${this.index}]: ${message}`);
    return new ImportSyntaxError(`not valid JSON: ${message}`);
  }
}

/** "an order", "a pet". */
function article(one: string): string {
  return `${/^[aeiou]/.test(one) ? 'an' : 'a'} ${one}`;
}
