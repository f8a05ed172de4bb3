// A Scan reply of the orders table as DynamoDB sends it (JSON bytes), written straight into the
// listing's JSON (bytes), with no object per item in between: the listing's hot path (what it
// costs against the SDK's parse, an Order and its JSON: docs/benchmarks.md, the transcoder rows).
//
// Exact by construction: for every reply it accepts it writes what the reference path writes (the
// SDK's parsed reply, orderFromAttributes, orderJson, UTF-8), and it accepts only the shapes it
// writes so. Anything else (an attribute of another type than S, N, BOOL or NULL, an escaped name,
// a repeated order field, an item the reference path would refuse, a reply that is not JSON) makes
// it decline the whole reply, which then takes the reference path, errors included. DynamoDB sends
// none of those for an orders table: it writes compact JSON, and numbers as their normalised
// digits. test/unit/scan-transcoder.spec.ts compares the two paths byte for byte. The one item of
// the table that is no order, the index-lag canary's sentinel, makes it decline its reply too: the
// reference path leaves the sentinel out (isSentinel), as every reader of the table does.
import { SENTINEL_ID } from '../contract/index-canary';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** What a byte is inside a JSON string: most are plain. */
const PLAIN = 0;
const ENDS = 1;
const ESCAPES = 2;
const INVALID = 3;
const HIGH = 4;
/** Read where a byte should be but the reply has ended. */
const END = 256;
const IN_STRING = new Uint8Array(END + 1).map((_, c) =>
  c === QUOTE ? ENDS : c === BACKSLASH ? ESCAPES : c < 0x20 || c === END ? INVALID : c >= 0x80 ? HIGH : PLAIN,
);
/** The characters JSON allows after a backslash, `u` aside. */
const SIMPLE_ESCAPES = new Set([...'"\\/bfnrt'].map((c) => c.charCodeAt(0)));
const isHex = (c: number) => (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** A string's text holds an escape, or a byte beyond ASCII: it is then decoded as JSON.parse would. */
const ESCAPED = 1;
const NON_ASCII = 2;

const ascii = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));
/** The sentinel's id as its digits arrive: an item with it is declined, never written. */
const SENTINEL_DIGITS = ascii(SENTINEL_ID);

/** The attributes a v1 order is read from, in the order orderJson writes them. */
const ID = 0;
const PET_ID = 1;
const QUANTITY = 2;
const SHIP_DATE = 3;
const COMPLETE = 4;
const STATUS = 5;
const FIELD_COUNT = 6;
const NAMES = ['id', 'petId', 'quantity', 'shipDate', 'complete', 'status'].map(ascii);
/** The one type the reference path reads each field from (orderFromAttributes): `.N`, `.S` or `.BOOL`. */
const TYPE_S = 0x53;
const TYPE_N = 0x4e;
const FIELD_TYPES = [TYPE_N, TYPE_N, TYPE_N, TYPE_S, -1, TYPE_S];
const BOOL = ascii('BOOL');
const NULL = ascii('NULL');
const TRUE = ascii('true');
const FALSE = ascii('false');
const ITEMS = ascii('Items');
const STATUSES = ['pending', 'shipped', 'cancelled'].map(ascii);

/** What the listing writes around the fields (orderJson's text), each order after a comma. */
const OPEN_ID = ascii(',{"id":');
const PET_ID_KEY = ascii(',"petId":');
const QUANTITY_KEY = ascii(',"quantity":');
const SHIP_DATE_KEY = ascii(',"shipDate":"');
const COMPLETE_KEY = ascii(',"complete":');
const STATUS_KEY = ascii(',"status":"');
const CLOSE_ORDER = ascii('"}');

/** One reply written as the listing's JSON, and the rest of the reply for the SDK to read. */
export interface TranscodedReply {
  /** Orders in the page. */
  orders: number;
  /** The orders' JSON, each order preceded by a comma: `,{…},{…}` (empty for an empty page). */
  json: Buffer;
  /** The reply without its Items (Count, ScannedCount, LastEvaluatedKey, …), as JSON. */
  rest: Buffer;
}

/**
 * One reply, read once from start to end. Each reading method takes the position to read at and
 * returns the position after what it read, or -1 where the reply is not of a shape it writes
 * exactly: the whole reply is then declined.
 */
const NO_REPLY: Uint8Array = new Uint8Array(0);

class Transcoder {
  private body = NO_REPLY;
  /** Where orders are written, reused from reply to reply (replies are transcoded one at a time). */
  private out = new Uint8Array(0);
  private written = 0;
  private orders = 0;
  /** The flags of the last string read. */
  private stringFlags = 0;
  /** The current item's fields: where each value's text starts and ends (between its quotes), its flags. */
  private readonly starts = new Int32Array(FIELD_COUNT);
  private readonly ends = new Int32Array(FIELD_COUNT);
  private readonly flags = new Int32Array(FIELD_COUNT);
  private itemStart = 0;

  run(body: Uint8Array): TranscodedReply | undefined {
    this.body = body;
    this.written = 0;
    this.orders = 0;
    try {
      return this.reply();
    } finally {
      // The reply is not kept past its page (the orders' buffer is, for the next reply).
      this.body = NO_REPLY;
    }
  }

  private reply(): TranscodedReply | undefined {
    const body = this.body;
    const rest: Uint8Array[] = [];
    let items = false;
    let at = this.space(0);
    if (body[at] !== OPEN_BRACE) return undefined;
    at = this.space(at + 1);
    for (;;) {
      const member = at;
      at = this.name(at);
      if (at < 0) return undefined;
      const isItems = this.equals(member + 1, at - 1, ITEMS);
      at = this.colon(at);
      if (at < 0) return undefined;
      if (isItems) {
        if (items) return undefined;
        items = true;
        at = this.items(at);
      } else {
        at = this.skipValue(at);
        if (at >= 0) rest.push(body.subarray(member, at));
      }
      if (at < 0) return undefined;
      at = this.space(at);
      const next = body[at];
      at = this.space(at + 1);
      if (next === CLOSE_BRACE) break;
      if (next !== COMMA) return undefined;
    }
    if (!items || at !== body.length) return undefined;
    const members = rest.flatMap((member, i) => (i === 0 ? [member] : [ascii(','), member]));
    return {
      orders: this.orders,
      json: Buffer.from(this.out.subarray(0, this.written)),
      rest: Buffer.concat([ascii('{'), ...members, ascii('}')]),
    };
  }

  /**
   * The Items array, each item's order written as soon as the item is read. One loop, written out
   * inline: the attributes of an order are read byte by byte, and a call per token cost several
   * times the reading itself. Only what DynamoDB does not send (whitespace, escapes, bytes beyond
   * ASCII) leaves the loop for the general readers below.
   */
  private items(at: number): number {
    const { body, starts, ends, flags } = this;
    if (body[at] !== OPEN_BRACKET) return -1;
    at = this.space(at + 1);
    if (body[at] === CLOSE_BRACKET) return at + 1;
    for (;;) {
      if (body[at] !== OPEN_BRACE) return -1;
      this.itemStart = at;
      for (let f = 0; f < FIELD_COUNT; f++) starts[f] = -1;
      let seen = 0;
      if ((body[at + 1] ?? 0) <= 0x20) at = this.space(at + 1) - 1;
      if (body[at + 1] === CLOSE_BRACE) at++;
      else {
        for (;;) {
          // The attribute's name, and which order field it is (-1: none).
          at++;
          if (body[at] !== QUOTE) return -1;
          const nameStart = at + 1;
          let kind: number | undefined;
          do kind = IN_STRING[body[++at] ?? END];
          while (kind === PLAIN);
          let field = -1;
          if (kind === ENDS) {
            field = this.field(nameStart, at);
            if (field >= 0) {
              // The same field twice: the reference path would keep the last one; declined instead.
              if (seen & (1 << field)) return -1;
              seen |= 1 << field;
            }
          } else {
            at = this.name(nameStart - 1) - 1;
            if (at < 0) return -1;
          }
          at++;
          // `:{"<type>":`
          if (body[at] === COLON && body[at + 1] === OPEN_BRACE && body[at + 2] === QUOTE) at += 3;
          else {
            at = this.colon(at);
            if (at < 0 || body[at] !== OPEN_BRACE) return -1;
            at = this.space(at + 1);
            if (body[at] !== QUOTE) return -1;
            at++;
          }
          const typeStart = at;
          do kind = IN_STRING[body[at++] ?? END];
          while (kind === PLAIN);
          if (kind !== ENDS) return -1;
          const typeLength = at - 1 - typeStart;
          const typeEnd = at - 1;
          const type = body[typeStart];
          if (body[at] === COLON && body[at + 1] !== undefined && body[at + 1]! > 0x20) at++;
          else at = this.colon(at);
          if (at < 0) return -1;
          // The value: a string, or true or false.
          if (typeLength === 1 && (type === TYPE_S || type === TYPE_N)) {
            if (body[at] !== QUOTE) return -1;
            const start = at + 1;
            do kind = IN_STRING[body[++at] ?? END];
            while (kind === PLAIN);
            let stringFlags = 0;
            if (kind !== ENDS) {
              at = this.string(start - 1) - 1;
              if (at < 0) return -1;
              stringFlags = this.stringFlags;
            }
            if (field >= 0 && FIELD_TYPES[field] === type) {
              starts[field] = start;
              ends[field] = at;
              flags[field] = stringFlags;
            }
            at++;
          } else if (this.equals(typeStart, typeEnd, BOOL) || this.equals(typeStart, typeEnd, NULL)) {
            let value = 1;
            if (this.equals(at, at + TRUE.length, TRUE)) at += TRUE.length;
            else if (this.equals(at, at + FALSE.length, FALSE)) {
              at += FALSE.length;
              value = 0;
            } else return -1;
            if (field === COMPLETE && type === BOOL[0]) starts[field] = value;
          } else return -1;
          // `}` ends the value; then `,` and the next attribute, or `}` and the item's end.
          if (body[at] !== CLOSE_BRACE) {
            at = this.space(at);
            if (body[at] !== CLOSE_BRACE) return -1;
          }
          at++;
          let next = body[at];
          if (next !== COMMA && next !== CLOSE_BRACE) {
            at = this.space(at);
            next = body[at];
          }
          if (next === CLOSE_BRACE) break;
          if (next !== COMMA) return -1;
          if ((body[at + 1] ?? 0) <= 0x20) at = this.space(at + 1) - 1;
        }
      }
      at++;
      if (!this.writeOrder(at - 1)) return -1;
      let next = body[at];
      if (next !== COMMA && next !== CLOSE_BRACKET) {
        at = this.space(at);
        next = body[at];
      }
      if (next === CLOSE_BRACKET) return at + 1;
      if (next !== COMMA) return -1;
      at = this.space(at + 1);
    }
  }

  /** The order as orderJson writes it, after a comma; false where the reference path throws. */
  private writeOrder(end: number): boolean {
    const { starts, ends, flags } = this;
    const id = starts[ID] ?? -1;
    const statusStart = starts[STATUS] ?? -1;
    if (id < 0 || statusStart < 0) return false;
    if (this.equals(id, ends[ID] ?? 0, SENTINEL_DIGITS)) return false;
    const status = this.status(statusStart, ends[STATUS] ?? 0, flags[STATUS] ?? 0);
    if (status === undefined) return false;
    this.reserve(end - this.itemStart + 16);
    this.put(OPEN_ID);
    this.digits(id, ends[ID] ?? 0, flags[ID] ?? 0, end);
    const petId = starts[PET_ID] ?? -1;
    if (petId >= 0) {
      this.put(PET_ID_KEY);
      this.digits(petId, ends[PET_ID] ?? 0, flags[PET_ID] ?? 0, end);
    }
    const quantity = starts[QUANTITY] ?? -1;
    if (quantity >= 0) {
      this.put(QUANTITY_KEY);
      this.number(quantity, ends[QUANTITY] ?? 0, flags[QUANTITY] ?? 0, end);
    }
    const shipDate = starts[SHIP_DATE] ?? -1;
    if (shipDate >= 0) {
      const shipEnd = ends[SHIP_DATE] ?? 0;
      if (flags[SHIP_DATE]) {
        this.put(SHIP_DATE_KEY.subarray(0, -1));
        this.text(JSON.stringify(this.decode(shipDate, shipEnd)), end);
      } else {
        this.put(SHIP_DATE_KEY);
        this.copy(shipDate, shipEnd);
        this.out[this.written++] = QUOTE;
      }
    }
    const complete = starts[COMPLETE] ?? -1;
    if (complete >= 0) {
      this.put(COMPLETE_KEY);
      this.put(complete ? TRUE : FALSE);
    }
    this.put(STATUS_KEY);
    this.put(status);
    this.put(CLOSE_ORDER);
    this.orders++;
    return true;
  }

  /** The status's text when it is one of the statuses (the reference path throws otherwise). */
  private status(start: number, end: number, flags: number): Uint8Array | undefined {
    if (flags === 0) return STATUSES.find((status) => this.equals(start, end, status));
    const text = this.decode(start, end);
    return STATUSES.find((status) => String.fromCharCode(...status) === text);
  }

  /** id and petId: the reference path writes the number's text as it came. */
  private digits(start: number, end: number, flags: number, itemEnd: number): void {
    if (flags === 0) this.copy(start, end);
    else this.text(this.decode(start, end), itemEnd);
  }

  /** quantity: the reference path writes `${Number(text)}`, which a plain integer of up to 15 digits is already. */
  private number(start: number, end: number, flags: number, itemEnd: number): void {
    if (flags === 0 && this.plainInteger(start, end)) this.copy(start, end);
    else this.text(`${Number(this.decode(start, end))}`, itemEnd);
  }

  /** An optional minus and 1 to 15 digits without a leading zero, or "0" (not "-0", which Number writes as 0). */
  private plainInteger(start: number, end: number): boolean {
    const body = this.body;
    let i = body[start] === MINUS ? start + 1 : start;
    const digits = end - i;
    if (digits < 1 || digits > 15) return false;
    if (body[i] === ZERO) return digits === 1 && i === start;
    for (; i < end; i++) {
      const c = body[i] ?? 0;
      if (c < ZERO || c > NINE) return false;
    }
    return true;
  }

  /** A string's text (between `start` and `end`), decoded from UTF-8 and JSON as the SDK's parse does. */
  private decode(start: number, end: number): string {
    return JSON.parse(Buffer.from(this.body.subarray(start - 1, end + 1)).toString('utf8')) as string;
  }

  /** Past any whitespace. */
  private space(at: number): number {
    const body = this.body;
    for (;;) {
      const c = body[at];
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return at;
      at++;
    }
  }

  /** Past a colon and the whitespace around it. */
  private colon(at: number): number {
    at = this.space(at);
    return this.body[at] === COLON ? this.space(at + 1) : -1;
  }

  /**
   * A name: a string with no escape, compared byte for byte (one with other than ASCII can never
   * be an order field's, whatever it decodes to).
   */
  private name(at: number): number {
    at = this.string(at);
    return at >= 0 && (this.stringFlags & ESCAPED) === 0 ? at : -1;
  }

  /** A JSON string, its flags in stringFlags; -1 when it is not one (a raw control character, a bad escape, no end). */
  private string(at: number): number {
    const body = this.body;
    if (body[at] !== QUOTE) return -1;
    let flags = 0;
    for (let i = at + 1; ;) {
      const kind = IN_STRING[body[i] ?? END];
      if (kind === PLAIN) i++;
      else if (kind === ENDS) {
        this.stringFlags = flags;
        return i + 1;
      } else if (kind === HIGH) {
        flags |= NON_ASCII;
        i++;
      } else if (kind === ESCAPES) {
        flags |= ESCAPED;
        const c = body[i + 1] ?? 0;
        if (SIMPLE_ESCAPES.has(c)) i += 2;
        else if (c === 0x75 && [2, 3, 4, 5].every((k) => isHex(body[i + k] ?? 0))) i += 6;
        else return -1;
      } else return -1;
    }
  }

  /**
   * Past any JSON value of the reply's other members. Only its extent is found here: the SDK reads
   * these members from `rest`, and refuses them there if they are not JSON.
   */
  private skipValue(at: number): number {
    const body = this.body;
    const first = body[at];
    if (first === QUOTE) return this.string(at);
    if (first === OPEN_BRACE || first === OPEN_BRACKET) {
      for (let depth = 0; ;) {
        const c = body[at];
        if (c === undefined) return -1;
        if (c === QUOTE) {
          at = this.string(at);
          if (at < 0) return -1;
          continue;
        }
        at++;
        if (c === OPEN_BRACE || c === OPEN_BRACKET) depth++;
        else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) return at;
      }
    }
    const start = at;
    for (;;) {
      const c = body[at];
      if (c === undefined || c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || c <= 0x20) break;
      at++;
    }
    return at > start ? at : -1;
  }

  /** Which order field a name is, or -1. */
  private field(start: number, end: number): number {
    const length = end - start;
    if (length === 2) return this.equals(start, end, NAMES[ID] as Uint8Array) ? ID : -1;
    if (length === 5) return this.equals(start, end, NAMES[PET_ID] as Uint8Array) ? PET_ID : -1;
    if (length === 6) return this.equals(start, end, NAMES[STATUS] as Uint8Array) ? STATUS : -1;
    if (length !== 8) return -1;
    if (this.equals(start, end, NAMES[QUANTITY] as Uint8Array)) return QUANTITY;
    if (this.equals(start, end, NAMES[SHIP_DATE] as Uint8Array)) return SHIP_DATE;
    return this.equals(start, end, NAMES[COMPLETE] as Uint8Array) ? COMPLETE : -1;
  }

  private equals(start: number, end: number, bytes: Uint8Array): boolean {
    if (end - start !== bytes.length) return false;
    const body = this.body;
    for (let i = 0; i < bytes.length; i++) if (body[start + i] !== bytes[i]) return false;
    return true;
  }

  private reserve(more: number): void {
    if (this.written + more <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.written + more));
    grown.set(this.out.subarray(0, this.written));
    this.out = grown;
  }

  private put(bytes: Uint8Array): void {
    const out = this.out;
    let w = this.written;
    for (let i = 0; i < bytes.length; i++) out[w++] = bytes[i] ?? 0;
    this.written = w;
  }

  private copy(start: number, end: number): void {
    const { body, out } = this;
    let w = this.written;
    for (let i = start; i < end; i++) out[w++] = body[i] ?? 0;
    this.written = w;
  }

  /** Decoded text, as UTF-8, with room for it and the rest of the item's order (which its item's length bounds). */
  private text(text: string, itemEnd: number): void {
    const bytes = Buffer.from(text, 'utf8');
    this.reserve(bytes.length + itemEnd - this.itemStart + 16);
    this.put(bytes);
  }
}

const transcoder = new Transcoder();

/** The reply's orders as the listing's JSON, or undefined when the reply is not one this writes exactly. */
export function transcodeScanReply(body: Uint8Array): TranscodedReply | undefined {
  return transcoder.run(body);
}
