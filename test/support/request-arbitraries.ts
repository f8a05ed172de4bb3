import fc from 'fast-check';

/**
 * An orderId as it goes into the path: `encoded` is a decoded value the client URL-encodes, `raw`
 * a segment sent as written (invalid percent-encodings included).
 */
export type IdSegment = { kind: 'encoded'; value: string } | { kind: 'raw'; segment: string };

const shiftDigits = (id: string, zero: number) => id.replace(/[0-9]/g, (d) => String.fromCharCode(zero + Number(d)));

/** Near misses of a real id: each reads as that number to a lenient parser, none is canonical. */
const NEAR_MISSES: ((id: string) => string)[] = [
  (id) => `+${id}`,
  (id) => `0${id}`,
  (id) => `00${id}`,
  (id) => ` ${id}`,
  (id) => `${id} `,
  (id) => `${id}\n`,
  (id) => `\t${id}`,
  (id) => `${id}.0`,
  (id) => `${id}e0`,
  (id) => `${id}n`,
  (id) => `${id}\u0000`,
  (id) => `\u200b${id}`,
  (id) => id.replace('-', '\u2212'),
  (id) => shiftDigits(id, 0xff10),
  (id) => shiftDigits(id, 0x0660),
  (id) => `${id}/`,
  (id) => `${id}?x=1`,
];

/** Neighbours and relatives of a real id: canonical, and exactly the ids an inexact parser confuses. */
const NEIGHBOURS: ((id: bigint) => bigint)[] = [
  (n) => n + 1n,
  (n) => n - 1n,
  (n) => -n,
  (n) => n * 10n,
  (n) => n + 2n ** 64n,
];

/** Lone surrogates, which the 'binary' unit leaves out: U+D800 to U+DFFF. */
const SURROGATES = { first: 0xd800, count: 0x800 };

/**
 * One code point, lone surrogates excepted: fast-check's `unit: 'binary'`, drawn from the same
 * indexes and mapped the same way. Its built-in twin builds, on first use, a map of all 1.1
 * million code points back to their indexes (about 2 CPU-seconds); this one maps back by arithmetic.
 */
const anyCodePoint = fc.nat({ max: 0x10ffff - SURROGATES.count }).map(
  (index) => String.fromCodePoint(index < SURROGATES.first ? index : index + SURROGATES.count),
  (value) => {
    const point = typeof value === 'string' ? value.codePointAt(0) : undefined;
    if (point === undefined || String.fromCodePoint(point) !== value) throw new Error('not one code point');
    if (point >= SURROGATES.first && point < SURROGATES.first + SURROGATES.count) throw new Error('a lone surrogate');
    return point < SURROGATES.first ? point : point - SURROGATES.count;
  },
);

/** Any text of at most `maxLength` code points, as `fc.string({ unit: 'binary', maxLength })` draws it. */
const anyText = (maxLength: number) => fc.string({ unit: anyCodePoint, maxLength });

function encodable(value: string): boolean {
  try {
    encodeURIComponent(value);
    return true;
  } catch {
    return false;
  }
}

/** Decoded orderId values: real ids, their near misses and neighbours, huge numbers, any text. */
export function orderIdValue(knownIds: readonly string[]): fc.Arbitrary<string> {
  const known = fc.constantFrom(...knownIds);
  return fc.oneof(
    { arbitrary: known, weight: 3 },
    { arbitrary: fc.tuple(known, fc.constantFrom(...NEAR_MISSES)).map(([id, miss]) => miss(id)), weight: 3 },
    { arbitrary: fc.tuple(known, fc.constantFrom(...NEIGHBOURS)).map(([id, f]) => String(f(BigInt(id)))), weight: 2 },
    { arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String), weight: 2 },
    { arbitrary: anyText(24).filter(encodable), weight: 1 },
    { arbitrary: fc.stringMatching(/^[-+ .eE0-9]{0,24}$/), weight: 1 },
  );
}

export function idSegment(knownIds: readonly string[]): fc.Arbitrary<IdSegment> {
  return fc.oneof(
    { arbitrary: orderIdValue(knownIds).map((value): IdSegment => ({ kind: 'encoded', value })), weight: 4 },
    {
      arbitrary: fc
        .stringMatching(/^(?:%[0-9A-Fa-f]{0,2}|[-+.0-9a-fA-F])*$/)
        .filter((segment) => segment.length <= 30)
        .map((segment): IdSegment => ({ kind: 'raw', segment })),
      weight: 1,
    },
  );
}

export function pathSegmentOf(id: IdSegment): string {
  return id.kind === 'encoded' ? encodeURIComponent(id.value) : id.segment;
}

/** `.` and `..` in their spellings URL parsers resolve: such a path names another resource. */
export function isDotSegment(segment: string): boolean {
  return ['.', '..'].includes(segment.toLowerCase().replace(/%2e/g, '.'));
}

/** The orderId the gateway hands the handler: percent-decoded, or left as sent when it cannot be. */
export function decodedId(id: IdSegment): string {
  if (id.kind === 'encoded') return id.value;
  try {
    return decodeURIComponent(id.segment);
  } catch {
    return id.segment;
  }
}

/** Bytes a header value may hold on the wire (node refuses the rest before sending). */
const SENDABLE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Authorization header values: the real key spelled right and wrong, other keys, other schemes,
 * and arbitrary text (its UTF-8 bytes, as HTTP/1.1 carries them). undefined leaves the header out.
 */
export function authorizationHeader(keys: {
  valid: string;
  others: readonly string[];
}): fc.Arbitrary<string | undefined> {
  const key = fc.constantFrom(
    keys.valid,
    ...keys.others,
    keys.valid.toLowerCase(),
    keys.valid.slice(0, -1),
    `${keys.valid}0`,
    `${keys.valid.slice(0, -1)}${keys.valid.endsWith('A') ? 'B' : 'A'}`,
  );
  const scheme = fc.constantFrom(
    'Bearer',
    'bearer',
    'BEARER',
    'bEaReR',
    'Basic',
    'Token',
    'Bearer:',
    'Bearer Bearer',
    '',
  );
  const gap = fc.stringMatching(/^[ \t]{0,3}$/);
  const shaped = fc.tuple(gap, scheme, gap, key, gap).map((parts) => parts.join(''));
  // Right in every way the pattern allows, so most requests get past the gateway to a handler.
  const right = fc
    .tuple(
      fc.constantFrom('Bearer', 'bearer', 'BEARER'),
      fc.stringMatching(/^ {1,3}$/),
      fc.stringMatching(/^[ \t]{0,2}$/),
    )
    .map(([word, spaces, around]) => `${around}${word}${spaces}${keys.valid}${around}`);
  const text = anyText(80).map((s) => Buffer.from(s, 'utf8').toString('latin1'));
  return fc.oneof(
    { arbitrary: right, weight: 8 },
    { arbitrary: shaped, weight: 4 },
    { arbitrary: text.filter((s) => SENDABLE.test(s)), weight: 2 },
    { arbitrary: fc.constant(undefined), weight: 1 },
  );
}

/**
 * Whether the gateway lets the header through: its validation pattern on the value the server
 * parsed (HTTP strips spaces and tabs around a header value), with the one valid key.
 */
export function isAuthorized(header: string | undefined, validKey: string): boolean {
  if (header === undefined) return false;
  return new RegExp(`^[Bb][Ee][Aa][Rr][Ee][Rr] +${validKey}$`).test(header.replace(/^[ \t]+|[ \t]+$/g, ''));
}
