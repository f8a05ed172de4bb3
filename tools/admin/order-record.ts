// What a valid order is, as an import file gives it: every problem is pushed, so one run shows
// everything that needs fixing.
import { isOrderStatus, ORDER_FIELDS, ORDER_STATUSES, QUANTITY_MAX, type Order } from '../../lib/contract/order';
import { int64, int64FieldProblem, isJsonObject, requiredId, numberText, unknownFields } from './json-record';
import { normalisedDateTime } from '../../lib/contract/date-time';

const DATE_TIME = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-20T10:00:00Z';
const OFFSET = /(?:[Zz]|[+-]\d{2}:\d{2})$/;

function quantity(value: unknown): number | undefined {
  const text = numberText(value);
  if (text === undefined || !/^(?:0|[1-9][0-9]{0,9})$/.test(text)) return undefined;
  const n = Number(text);
  return n <= QUANTITY_MAX ? n : undefined;
}

/** The date-time as the UTC text every stored shipDate has, or what is wrong with it. */
export function shipDate(value: unknown): { utc: string } | { problem: string } {
  const text = typeof value === 'string' ? value : '';
  const utc = normalisedDateTime(text);
  if (utc !== undefined) return { utc };
  // A real date and time whose offset takes it out of the years a date-time can write, e.g.
  // 9999-12-31T23:59:59-23:59, is said so: its fields are fine.
  const time = normalisedDateTime(text.replace(OFFSET, 'Z')) === undefined ? NaN : Date.parse(text);
  const outside = Number.isNaN(time) ? undefined : new Date(time).toISOString();
  if (outside === undefined || /^\d{4}-/.test(outside)) return { problem: DATE_TIME };
  return { problem: `is ${outside} in UTC, outside the years 0000 to 9999 that a date-time can hold` };
}

/** One value as an order, pushing what is wrong with it to `problems` (`at` says where it is). */
export function checkOrder(value: unknown, at: string, problems: string[]): Order | undefined {
  if (!isJsonObject(value)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  const before = problems.length;
  const id = requiredId(value, at, problems);

  const status = value.status;
  if (!Object.hasOwn(value, 'status')) problems.push(`${at}.status: is required`);
  else if (!isOrderStatus(status)) problems.push(`${at}.status: must be one of ${ORDER_STATUSES.join(', ')}`);

  // Optional fields are left out rather than null, as in the API's own JSON.
  const order: Partial<Order> = {};
  if (Object.hasOwn(value, 'petId')) {
    order.petId = int64(value.petId);
    if (order.petId === undefined) problems.push(`${at}.petId: ${int64FieldProblem(value.petId)}`);
  }
  if (Object.hasOwn(value, 'quantity')) {
    order.quantity = quantity(value.quantity);
    if (order.quantity === undefined) problems.push(`${at}.quantity: must be an integer from 0 to ${QUANTITY_MAX}`);
  }
  if (Object.hasOwn(value, 'shipDate')) {
    const date = shipDate(value.shipDate);
    if ('utc' in date) order.shipDate = date.utc;
    else problems.push(`${at}.shipDate: ${date.problem}`);
  }
  if (Object.hasOwn(value, 'complete')) {
    if (typeof value.complete === 'boolean') order.complete = value.complete;
    else problems.push(`${at}.complete: must be true or false`);
  }
  problems.push(...unknownFields(value, ORDER_FIELDS, at));
  if (problems.length > before || id === undefined || !isOrderStatus(status)) return undefined;
  return { id, ...order, status };
}
