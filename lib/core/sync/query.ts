// The v2 listing's query string, parsed and checked: every mistake is an InvalidQueryError naming
// its parameter, never a 5xx.
import {
  SYNC_FILTERS,
  SYNC_PAGE,
  SYNC_PARAMETERS,
  SYNC_TEXT_LIMITS,
  type SyncFilter,
  type SyncFilters,
} from '../../contract/sync';
import { SYNC_FILTER_DECLARATIONS } from '../../contract/sync-filters';
import { InvalidCursorError, InvalidQueryError } from './sync-errors';

export interface SyncQuery {
  limit: number;
  filters: SyncFilters;
  cursor?: string;
}

/** The one value of a parameter; a repeated one is refused, since which value counts would be a guess. */
function single(values: readonly string[] | undefined, name: string): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  if (values.length > 1) throw new InvalidQueryError(name, 'give it at most once');
  return values[0];
}

/**
 * Plain decimal digits, as order ids are written (lib/contract/order.ts): no sign, no leading zero,
 * so `05` is refused as `orderId=007` is, rather than read as 5.
 */
function parseLimit(text: string | undefined): number {
  if (text === undefined) return SYNC_PAGE.defaultLimit;
  const { minLimit, maxLimit } = SYNC_PAGE;
  const value = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : NaN;
  if (!(value >= minLimit && value <= maxLimit))
    throw new InvalidQueryError(
      SYNC_PARAMETERS.limit,
      `must be an integer from ${minLimit} to ${maxLimit}, in plain digits without leading zeros`,
    );
  return value;
}

/** A filter's value as the request gives it, checked and held as the walk reads it (its declaration's parse). */
function setFilter<F extends SyncFilter>(filters: SyncFilters, name: F, text: string): void {
  const parsed = SYNC_FILTER_DECLARATIONS[name].parse(text);
  if ('refused' in parsed) throw new InvalidQueryError(name, parsed.refused);
  filters[name] = parsed.value;
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
  // Refused before its seal is checked: no cursor this API issues is that long.
  if (cursor !== undefined && cursor.length > SYNC_TEXT_LIMITS.cursor)
    throw new InvalidCursorError(
      `${cursor.length} characters, longer than any this API issues (${SYNC_TEXT_LIMITS.cursor})`,
    );
  // A later page's filters are its cursor's, checked when its walk began.
  if (cursor === undefined) refuseFuture(filters.updatedSince, now);
  return { limit, filters, ...(cursor !== undefined ? { cursor } : {}) };
}
