// The v2 listing's cursor: where the next page starts and the filters it belongs to, sealed with an
// HMAC so that a cursor this API did not issue, or one altered since, is refused rather than read.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { isOrderStatus } from '../../contract/order';
import { SYNC_FILTERS, type SyncFilter, type SyncFilters } from '../../contract/sync';
import { SYNC_SHARDS } from '../../contract/tables';
import { InvalidCursorError } from './sync-errors';

/**
 * Where the next page starts. Unfiltered pages scan the table: after the last id read. Filtered
 * pages merge the index's shards: after the last update key taken from each (null: from its
 * start), leaving out the shards already read to their end.
 */
export type PagePosition =
  { kind: 'scan'; after: string } | { kind: 'index'; after: (string | null)[]; done: number[] };

export interface CursorContent {
  filters: SyncFilters;
  position: PagePosition;
  /** When the walk's first page was read (epoch ms): its last page's watermark follows from it. */
  started: number;
}

/**
 * 2: cursors carry their walk's start (the watermark). 3: a walk with a status and updatedSince
 * reads the by-update index (its departures), so a version-2 position of such a walk is on
 * another index. An older cursor is refused, and the walk starts again from its watermark.
 */
export const CURSOR_VERSION = 3;

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** The cursor text: the content as base64url JSON, a dot, and its HMAC-SHA256 under `key`. */
export function sealCursor(content: CursorContent, key: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify({ v: CURSOR_VERSION, ...content })).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

const isString = (value: unknown): value is string => typeof value === 'string';

/** What a sealed cursor may hold for each filter. */
const FILTER_VALUE: { [F in SyncFilter]: (value: unknown) => value is NonNullable<SyncFilters[F]> } = {
  status: isOrderStatus,
  updatedSince: isString,
};
const isFilter = (name: string): name is SyncFilter => (SYNC_FILTERS as readonly string[]).includes(name);

function filtersIn(value: unknown): SyncFilters | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  const valid = entries.every(([name, v]) => isFilter(name) && FILTER_VALUE[name](v));
  return valid ? (Object.fromEntries(entries) as SyncFilters) : undefined;
}

function positionIn(value: unknown): PagePosition | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const p = value as Record<string, unknown>;
  if (p.kind === 'scan' && isString(p.after)) return { kind: 'scan', after: p.after };
  const shardIndex = (n: unknown): n is number =>
    Number.isInteger(n) && (n as number) >= 0 && (n as number) < SYNC_SHARDS;
  if (
    p.kind === 'index' &&
    Array.isArray(p.after) &&
    p.after.length === SYNC_SHARDS &&
    p.after.every((a) => a === null || isString(a)) &&
    Array.isArray(p.done) &&
    p.done.every(shardIndex)
  )
    return { kind: 'index', after: p.after as (string | null)[], done: p.done as number[] };
  return undefined;
}

/** The content of a cursor sealed with `key`; InvalidCursorError for anything else. */
export function openCursor(cursor: string, key: Uint8Array): CursorContent {
  const [payload, tag, ...extra] = cursor.split('.');
  if (payload === undefined || tag === undefined || extra.length > 0)
    throw new InvalidCursorError('not a cursor of this API');
  const expected = mac(key, payload);
  const given = Buffer.from(tag, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new InvalidCursorError('not issued by this API, or altered');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('unreadable');
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const filters = filtersIn(fields.filters);
  const position = positionIn(fields.position);
  const started = fields.started;
  if (fields.v !== CURSOR_VERSION || !filters || !position || !Number.isSafeInteger(started))
    throw new InvalidCursorError('unreadable, or from an older version of this API: start the walk again');
  return { filters, position, started: started as number };
}

/**
 * The filters a page with this cursor reads: the cursor's own. The request may repeat them or leave
 * them out; a filter it gives that differs from the cursor's, or adds, is refused.
 */
export function cursorFilters(cursor: CursorContent, requested: SyncFilters): SyncFilters {
  for (const name of SYNC_FILTERS) {
    const asked = requested[name];
    if (asked !== undefined && asked !== cursor.filters[name])
      throw new InvalidCursorError(`it belongs to other filters than ${name}=${asked}`);
  }
  return cursor.filters;
}
