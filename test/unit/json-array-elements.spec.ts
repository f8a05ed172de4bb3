import { stringify } from 'lossless-json';
import {
  ElementReader,
  ImportSyntaxError,
  MAX_ELEMENT_CHARS,
  type Element,
} from '../../tools/admin/json-array-elements';

/** The elements of `text` fed in the given pieces. */
function split(pieces: readonly string[]): Element[] {
  const reader = new ElementReader();
  return [...pieces.flatMap((piece) => reader.feed(piece)), ...reader.end()];
}

const plain = (elements: Element[]) =>
  elements.map((element) => ('value' in element ? (stringify(element.value) ?? '') : element.problem));

// Strings holding brackets, commas, escaped quotes and backslashes; scalars; nesting; whitespace.
const TEXT =
  '\uFEFF [ {"id": 1, "status": "p]e,n{d\\"ing\\\\"} ,\n 7 , "a]b" ,[1,[2]],{"n":{"m":[]}}, true,null , -1.5e3 ]\n ';

test('the same elements whatever the chunk boundaries', () => {
  const whole = plain(split([TEXT]));
  expect(whole).toEqual([
    '{"id":1,"status":"p]e,n{d\\"ing\\\\"}',
    '7',
    '"a]b"',
    '[1,[2]]',
    '{"n":{"m":[]}}',
    'true',
    'null',
    '-1.5e3',
  ]);
  for (let cut = 0; cut <= TEXT.length; cut++) {
    expect(plain(split([TEXT.slice(0, cut), TEXT.slice(cut)]))).toEqual(whole);
  }
  expect(plain(split([...TEXT]))).toEqual(whole);
});

test.each([
  ['', /the file is empty/],
  ['  ', /the file is empty/],
  ['{"id": 1}', /must be a JSON array of orders/],
  ['[1,]', /a comma before \]/],
  ['[1 2]', /expected , or \] after orders\[0\]/],
  ['[1] x', /nothing after the closing \]/],
  ['[{"id": 1}', /ends before the closing \]/],
  ['[{"id": 1, "id": 2}]', /not valid JSON in orders\[0\]/],
  ['[{"id": 01}]', /not valid JSON in orders\[0\]/],
])('%j is refused: %p', (text, message) => {
  expect(() => split([text])).toThrow(ImportSyntaxError);
  expect(() => split([text])).toThrow(message);
});

test('an element longer than any order, or nested deeper, is a problem of its own, never parsed', () => {
  const long = `{"id": 1, "note": "${'x'.repeat(MAX_ELEMENT_CHARS)}"}`;
  const deep = `${'['.repeat(20)}${']'.repeat(20)}`;
  const elements = split(['[', long.slice(0, 10), long.slice(10), ',', deep, ', {"id": 2}]']);
  expect(elements).toEqual([
    { index: 0, problem: `is ${long.length} characters long, more than an order can be (${MAX_ELEMENT_CHARS})` },
    { index: 1, problem: 'must be an object' },
    { index: 2, value: expect.objectContaining({}) },
  ]);
});

test('ids beyond 2^53 keep every digit; text split inside a character or the byte-order mark reads the same', () => {
  const text = '\uFEFF[{"id": 9223372036854775807, "note": "caf\u00e9 \u{1F436}"}, -9007199254740993]';
  const bytes = Buffer.from(text);
  const whole = plain(split([text]));
  expect(whole).toEqual(['{"id":9223372036854775807,"note":"caf\u00e9 \u{1F436}"}', '-9007199254740993']);
  for (let cut = 1; cut < bytes.length; cut++) {
    const reader = new ElementReader();
    const elements = [...reader.feed(bytes.subarray(0, cut)), ...reader.feed(bytes.subarray(cut)), ...reader.end()];
    expect(plain(elements)).toEqual(whole);
  }
});
