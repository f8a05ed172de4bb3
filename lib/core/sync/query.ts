// The v2 listing's query string, parsed and checked: every mistake is an InvalidQueryError naming
// its parameter, never a 5xx.
import { isOrderStatus } from '../../contract/order';
import {
  SYNC_FILTERS,
  SYNC_PAGE,
  SYNC_PARAMETERS,
  SYNC_STATUSES,
  type SyncFilter,
  type SyncFilters,
} from '../../contract/sync';
import { InvalidQueryError } from './sync-errors';

export interface SyncQuery {
  limit: number;
  filters: SyncFilters;
  cursor?: string;
}

/** RFC 3339 date-time (section 5.6): date, `T`, time, optional fraction, `Z` or a numeric offset. */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time as the ISO text updatedAt is stored in, or undefined when it is not one (a
 * day or time out of range included). A fraction finer than a millisecond rounds up, so "at or
 * after" never takes in a millisecond that began before the instant asked for.
 */
export function normalisedDateTime(text: string): string | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = m[7] ?? '';
  const offsetMinutes = m[9] ? (m[9] === '-' ? -1 : 1) * (Number(m[10]) * 60 + Number(m[11])) : 0;
  if (m[9] && (Number(m[10]) > 23 || Number(m[11]) > 59)) return undefined;
  // Date.UTC would read the years 0 to 99 as 1900 to 1999; setUTCFullYear takes them as written.
  const local = new Date(0).setUTCFullYear(year, month - 1, day) + ((hour * 60 + minute) * 60 + second) * 1000;
  const back = new Date(local);
  const exact =
    back.getUTCFullYear() === year &&
    back.getUTCMonth() === month - 1 &&
    back.getUTCDate() === day &&
    back.getUTCHours() === hour &&
    back.getUTCMinutes() === minute &&
    back.getUTCSeconds() === second;
  if (!exact) return undefined;
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const finer = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  const instant = new Date(local + millis + finer - offsetMinutes * 60_000);
  // Four-digit years only: beyond them toISOString writes an expanded year no updatedAt has.
  const iso = Number.isNaN(instant.getTime()) ? undefined : instant.toISOString();
  return iso && /^\d{4}-/.test(iso) ? iso : undefined;
}

/**
 * What a refused updatedSince should have been. A query string reads an unencoded `+` as a space, so
 * `...+02:00` arrives as `... 02:00`: that case is told to send the offset's sign as %2B.
 */
function dateTimeHint(text: string): string {
  const example = 'must be an RFC 3339 date-time, e.g. 2026-11-22T12:00:00Z';
  return / \d{2}:\d{2}$/.test(text)
    ? `${example}; a + in the offset must be sent as %2B (an unencoded + reads as a space)`
    : example;
}

/** The one value of a parameter; a repeated one is refused, since which value counts would be a guess. */
function single(values: readonly string[] | undefined, name: string): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new InvalidQueryError(name, 'give it at most once');
  return values[0];
}

function parseLimit(text: string | undefined): number {
  if (text === undefined) return SYNC_PAGE.defaultLimit;
  const { minLimit, maxLimit } = SYNC_PAGE;
  const value = /^[0-9]{1,7}$/.test(text) ? Number(text) : NaN;
  if (!(value >= minLimit && value <= maxLimit))
    throw new InvalidQueryError(SYNC_PARAMETERS.limit, `must be an integer from ${minLimit} to ${maxLimit}`);
  return value;
}

/** Each filter's value as the request gives it, checked and held as the walk reads it. */
const FILTER_VALUES: { [F in SyncFilter]: (text: string) => NonNullable<SyncFilters[F]> } = {
  status(text) {
    if (!isOrderStatus(text))
      throw new InvalidQueryError(SYNC_PARAMETERS.status, `must be one of ${SYNC_STATUSES.join(', ')}`);
    return text;
  },
  updatedSince(text) {
    const normalised = normalisedDateTime(text);
    if (normalised === undefined) throw new InvalidQueryError(SYNC_PARAMETERS.updatedSince, dateTimeHint(text));
    return normalised;
  },
};

function setFilter<F extends SyncFilter>(filters: SyncFilters, name: F, text: string): void {
  filters[name] = FILTER_VALUES[name](text);
}

/**
 * A walk asked from an instant the server has not reached would learn nothing of the changes made
 * before it gets there. Compared with the server's clock (AWS's) as it is: no allowance for clock
 * error, which could only let an instant that is still to come through.
 */
function refuseFuture(updatedSince: string | undefined, now: number): void {
  if (updatedSince === undefined || Date.parse(updatedSince) <= now) return;
  const server = new Date(now).toISOString();
  throw new InvalidQueryError(
    SYNC_PARAMETERS.updatedSince,
    `${updatedSince} is later than the server's time (${server}); give your last walk's watermark, or an earlier instant`,
  );
}

/**
 * The query of one request, from its parameters as API Gateway gives them (every value of each);
 * `now` is the server's time, which a walk's first page may not ask to start after.
 */
export function parseSyncQuery(
  parameters: Record<string, readonly string[] | undefined> | null,
  now: number,
): SyncQuery {
  const given = parameters ?? {};
  const known: readonly string[] = Object.values(SYNC_PARAMETERS);
  // Own names only, whatever they are (`constructor`, `__proto__`): the event is parsed JSON.
  const unknown = Object.keys(given).find((name) => !known.includes(name));
  if (unknown !== undefined)
    throw new InvalidQueryError(unknown.slice(0, 64), `unknown parameter (known: ${known.join(', ')})`);

  const limit = parseLimit(single(given.limit, SYNC_PARAMETERS.limit));
  const filters: SyncFilters = {};
  for (const name of SYNC_FILTERS) {
    const text = single(given[name], name);
    if (text !== undefined) setFilter(filters, name, text);
  }
  const cursor = single(given.cursor, SYNC_PARAMETERS.cursor);
  if (cursor === '') throw new InvalidQueryError(SYNC_PARAMETERS.cursor, 'must not be empty');
  // A later page's filters are its cursor's, checked when its walk began.
  if (cursor === undefined) refuseFuture(filters.updatedSince, now);
  return { limit, filters, ...(cursor !== undefined ? { cursor } : {}) };
}
