// Checks the orders of an `orders import` file, element by element as import-stream.ts reads
// them. Every element is checked and every problem counted, so one run shows what needs fixing;
// the caller writes nothing unless the whole file is valid. Memory holds one element, the first
// problems, and 8 bytes per order for the duplicate-id check: never the file.

import { isLosslessNumber } from 'lossless-json';
import {
  canonicalInt64,
  isOrderStatus,
  ORDER_FIELDS,
  ORDER_STATUSES,
  QUANTITY_MAX,
  type Order,
} from '../../lib/contract/order';
import { int64Problem } from './int64-text';
import { shownWords } from '../shared/errors';
import { fileElements, ORDER_NOUN, type Element, type ImportNoun } from './import-stream';

/** One kind of record an import writes: what it is called, and how one element is checked. */
export interface ImportKind<T extends { id: string }> {
  noun: ImportNoun;
  /** The element as a record, or what is wrong with it; its id whenever it has a valid one. */
  check(element: Element): { record?: T; id?: string; problems: string[] };
}

/** Problems listed one per line; past these only their number is said. */
export const MAX_SHOWN_PROBLEMS = 100;

const INT64 = 'must be an integer in the int64 range';

/** RFC 3339 date-time (the OpenAPI `date-time`), with a time zone so the instant is unambiguous. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-](\d{2}):(\d{2}))$/;

/** The exact digits of a JSON number, or undefined when the value is not a number. */
function numberText(value: unknown): string | undefined {
  return isLosslessNumber(value) ? value.value : undefined;
}

export function int64(value: unknown): string | undefined {
  const text = numberText(value);
  return text === undefined ? undefined : canonicalInt64(text);
}

function quantity(value: unknown): number | undefined {
  const text = numberText(value);
  if (text === undefined || !/^(?:0|[1-9][0-9]{0,9})$/.test(text)) return undefined;
  const n = Number(text);
  return n <= QUANTITY_MAX ? n : undefined;
}

/** The UTC form every stored shipDate has: the OpenAPI `date-time` with a four-digit year. */
const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The date-time as UTC `toISOString()` text, or a problem when it is not a valid RFC 3339 date-time. */
export function normaliseDateTime(value: unknown): { ok: true; utc: string } | { ok: false; problem: string } {
  const invalid = {
    ok: false,
    problem: 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-20T10:00:00Z',
  } as const;
  if (typeof value !== 'string') return invalid;
  const match = DATE_TIME.exec(value);
  if (!match) return invalid;
  const [, year, month, day, hour, minute, second, , , offsetHours = '0', offsetMinutes = '0'] = match;
  const fields = `${year}-${month}-${day}T${hour}:${minute}:${second}`;
  // Date.parse rolls 2026-02-30 over into March: the calendar and the clock are valid only when
  // the same fields come back out of the UTC instant they name.
  const asUtc = Date.parse(`${fields}Z`);
  const valid =
    !Number.isNaN(asUtc) &&
    new Date(asUtc).toISOString().startsWith(fields) &&
    Number(offsetHours) <= 23 &&
    Number(offsetMinutes) <= 59;
  const time = valid ? Date.parse(value) : NaN;
  if (Number.isNaN(time)) return invalid;
  const utc = new Date(time).toISOString();
  // 9999-12-31T23:59:59-23:59 is in the year 10000 in UTC, which a `date-time` cannot write.
  if (!UTC_DATE_TIME.test(utc))
    return { ok: false, problem: `is ${utc} in UTC, outside the years 0000 to 9999 that a date-time can hold` };
  return { ok: true, utc };
}

function isField(key: string): key is keyof Order {
  return (ORDER_FIELDS as readonly string[]).includes(key);
}

/** What is wrong with an int64 field's value: it says how to write a number that is not canonical. */
export function int64FieldProblem(value: unknown): string {
  const text = numberText(value);
  return text === undefined ? INT64 : (int64Problem(text) ?? INT64);
}

/** One element as an order, pushing what is wrong with it to `problems`. */
function checkOrder(element: unknown, at: string, problems: string[]): Order | undefined {
  // A number is parsed into a LosslessNumber object; its fields are the library's, not the file's.
  if (typeof element !== 'object' || element === null || Array.isArray(element) || isLosslessNumber(element)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  const fields = element as Record<string, unknown>;
  const before = problems.length;
  const id = int64(fields.id);
  if (!Object.hasOwn(fields, 'id')) problems.push(`${at}.id: is required`);
  else if (id === undefined) problems.push(`${at}.id: ${int64FieldProblem(fields.id)}`);

  const status = fields.status;
  if (!Object.hasOwn(fields, 'status')) problems.push(`${at}.status: is required`);
  else if (!isOrderStatus(status)) problems.push(`${at}.status: must be one of ${ORDER_STATUSES.join(', ')}`);

  // Optional fields are left out rather than null, as in the API's own JSON.
  const order: Partial<Order> = {};
  if (Object.hasOwn(fields, 'petId')) {
    order.petId = int64(fields.petId);
    if (order.petId === undefined) problems.push(`${at}.petId: ${int64FieldProblem(fields.petId)}`);
  }
  if (Object.hasOwn(fields, 'quantity')) {
    order.quantity = quantity(fields.quantity);
    if (order.quantity === undefined) problems.push(`${at}.quantity: must be an integer from 0 to ${QUANTITY_MAX}`);
  }
  if (Object.hasOwn(fields, 'shipDate')) {
    const shipDate = normaliseDateTime(fields.shipDate);
    if (shipDate.ok) order.shipDate = shipDate.utc;
    else problems.push(`${at}.shipDate: ${shipDate.problem}`);
  }
  if (Object.hasOwn(fields, 'complete')) {
    if (typeof fields.complete === 'boolean') order.complete = fields.complete;
    else problems.push(`${at}.complete: must be true or false`);
  }
  for (const key of Object.keys(fields)) {
    if (!isField(key)) problems.push(`${at}.${key}: unknown field (allowed: ${ORDER_FIELDS.join(', ')})`);
  }
  if (problems.length > before || id === undefined || !isOrderStatus(status)) return undefined;
  return { id, ...order, status };
}

/** An element as an order, or what is wrong with it (echoed input shortened). */
export function elementOrder(element: Element): { order?: Order; id?: string; problems: string[] } {
  const at = `orders[${element.index}]`;
  if (!('value' in element)) return { problems: [`${at}: ${element.problem}`] };
  const problems: string[] = [];
  const order = checkOrder(element.value, at, problems);
  const id = int64((element.value as { id?: unknown } | null)?.id);
  return { ...(order ? { order } : {}), ...(id !== undefined ? { id } : {}), problems: problems.map(shownWords) };
}

/** `orders import`'s records. */
export const ORDER_IMPORT: ImportKind<Order> = {
  noun: ORDER_NOUN,
  check: (element) => {
    const { order, ...rest } = elementOrder(element);
    return { ...(order ? { record: order } : {}), ...rest };
  },
};

/** The ids of a file, 8 bytes each: a sorted copy shows any id given twice. */
class IdList {
  private ids = new BigInt64Array(1024);
  private size = 0;

  add(id: string): void {
    if (this.size === this.ids.length) {
      const grown = new BigInt64Array(this.ids.length * 2);
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[this.size++] = BigInt(id);
  }

  /** Every id that occurs more than once, as canonical text. */
  repeated(): Set<string> {
    const sorted = this.ids.subarray(0, this.size).sort();
    const repeated = new Set<string>();
    for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) repeated.add(String(sorted[i]));
    return repeated;
  }
}

/** The first problems of a file, and how many there are in all. */
export class Problems {
  readonly shown: string[] = [];
  count = 0;

  add(problems: readonly string[]): void {
    for (const problem of problems) {
      if (this.shown.length < MAX_SHOWN_PROBLEMS) this.shown.push(problem);
      this.count++;
    }
  }
}

export interface FileCheck {
  /** Elements read, valid or not. */
  count: number;
  problems: Problems;
  /** True when Ctrl-C stopped the check. */
  interrupted: boolean;
}

/** Reads the whole file once, checking every element; the orders themselves are not kept. */
export async function checkImportFile<T extends { id: string }>(
  file: string,
  signal?: AbortSignal,
  kind: ImportKind<T> | ImportKind<Order> = ORDER_IMPORT,
): Promise<FileCheck> {
  const problems = new Problems();
  const ids = new IdList();
  let count = 0;
  for await (const element of fileElements(file, signal, kind.noun)) {
    count++;
    const checked = kind.check(element);
    problems.add(checked.problems);
    if (checked.id !== undefined) ids.add(checked.id);
  }
  if (signal?.aborted) return { count, problems, interrupted: true };
  const repeated = ids.repeated();
  if (repeated.size > 0) {
    // Rare, and a mistake: a second read finds where each repeated id first occurs.
    const first = new Map<string, number>();
    for await (const element of fileElements(file, signal, kind.noun)) {
      const { id } = kind.check(element);
      if (id === undefined || !repeated.has(id)) continue;
      const seen = first.get(id);
      if (seen === undefined) first.set(id, element.index);
      else problems.add([`${kind.noun.many}[${element.index}].id: ${id} is also the id of ${kind.noun.many}[${seen}]`]);
    }
  }
  return { count, problems, interrupted: signal?.aborted ?? false };
}
