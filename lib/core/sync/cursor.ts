// The v2 listing's cursor: where the next page starts and the filters it belongs to, sealed with an
// HMAC so that a cursor this API did not issue, or one altered since, is refused rather than read.
import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  CURSOR_LIFETIME_MS,
  listsDepartures,
  SYNC_FILTERS,
  type SyncFilter,
  type SyncFilters,
} from '../../contract/sync';
import { SYNC_FILTER_DECLARATIONS } from '../../contract/sync-filters';
import { SYNC_SHARDS } from '../../contract/tables';
import { InvalidCursorError, UnknownCursorKeyError } from './sync-errors';

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
 * reads the by-update index (its departures), so a version-2 position of such a walk is on the
 * by-status index. Every other walk's cursor is still sealed as version 2, the same content as
 * before, so during a canary the version before this one (which opens version 2 only) reads it.
 */
export const CURSOR_VERSION = 3;
export const CURSOR_VERSION_BEFORE_DEPARTURES = 2;

/** The version a walk's cursors are sealed as: the newest whose content the walk needs. */
export const cursorVersionFor = (filters: SyncFilters): number =>
  listsDepartures(filters) ? CURSOR_VERSION : CURSOR_VERSION_BEFORE_DEPARTURES;

/**
 * A version-2 cursor of a status-and-since walk, sealed before departures: its position is on the
 * by-status index, so the walk goes on from the start of the by-update index. Its pages come again
 * (a repeat is harmless) and its watermark, from the same start, is as settled as it was.
 */
const FROM_THE_START: PagePosition = { kind: 'index', after: Array<null>(SYNC_SHARDS).fill(null), done: [] };

/**
 * The HMAC keys a deployment holds: cursors are sealed with the current one; after a rotation the
 * previous one still opens the cursors it sealed, for as long as they live (CURSOR_LIFETIME_MS).
 */
export interface CursorKeys {
  current: Uint8Array;
  previous?: Uint8Array;
}

/**
 * Where a deployment's keys come from (lib/root/cursor-key.ts): the keys it holds, and the keys read
 * anew when a cursor is sealed with neither (a rotation this holder has not seen yet).
 */
export interface CursorKeySource {
  /** The keys held; read first if none are. */
  held(): Promise<CursorKeys>;
  /** The keys read again, now held; undefined when they were read too recently to read again. */
  renewed(): Promise<CursorKeys | undefined>;
}

function mac(key: Uint8Array, payload: string): Buffer {
  return createHmac('sha256', key).update(payload).digest();
}

/** The cursor text: the content as base64url JSON, a dot, and its HMAC-SHA256 under the current key. */
export function sealCursor(content: CursorContent, keys: CursorKeys): string {
  const payload = Buffer.from(JSON.stringify({ v: cursorVersionFor(content.filters), ...content })).toString(
    'base64url',
  );
  return `${payload}.${mac(keys.current, payload).toString('base64url')}`;
}

/** Whether `tag` is the payload's HMAC under one of the keys (each compared in constant time). */
function sealedByOneOf(keys: CursorKeys, payload: string, tag: string): boolean {
  const given = Buffer.from(tag, 'base64url');
  return [keys.current, keys.previous].some((key) => {
    if (key === undefined) return false;
    const expected = mac(key, payload);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const isString = (value: unknown): value is string => typeof value === 'string';

const isFilter = (name: string): name is SyncFilter => (SYNC_FILTERS as readonly string[]).includes(name);

function filtersIn(value: unknown): SyncFilters | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  // What a sealed cursor may hold for each filter: its declaration says.
  const valid = entries.every(([name, v]) => isFilter(name) && SYNC_FILTER_DECLARATIONS[name].holds(v));
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

/**
 * The content of a cursor sealed with one of `keys` whose walk started at most CURSOR_LIFETIME_MS
 * before `now`. A cursor sealed with neither key is UnknownCursorKeyError (the caller may hold
 * keys older than the cursor's); anything else wrong is InvalidCursorError.
 */
export function openCursor(cursor: string, keys: CursorKeys, now: number): CursorContent {
  const [payload, tag, ...extra] = cursor.split('.');
  if (payload === undefined || tag === undefined || extra.length > 0)
    throw new InvalidCursorError('not a cursor of this API');
  if (!sealedByOneOf(keys, payload, tag)) throw new UnknownCursorKeyError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('unreadable');
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  const filters = filtersIn(fields.filters);
  let position = positionIn(fields.position);
  const started = fields.started;
  const before = filters && fields.v === CURSOR_VERSION_BEFORE_DEPARTURES && listsDepartures(filters);
  if (before && position?.kind === 'index') position = FROM_THE_START;
  else if (filters && fields.v !== cursorVersionFor(filters)) position = undefined;
  if (!filters || !position || !Number.isSafeInteger(started))
    throw new InvalidCursorError('unreadable, or from an older version of this API: start the walk again');
  if (now - (started as number) > CURSOR_LIFETIME_MS)
    throw new InvalidCursorError(
      `expired: its walk started more than ${CURSOR_LIFETIME_MS / 86_400_000} days ago; start the walk again from your watermark`,
    );
  return { filters, position, started: started as number };
}

/**
 * openCursor with the keys `source` holds, and, for a cursor sealed with neither, with the keys read
 * again: a cursor another container (or a new version) sealed after a rotation opens here too.
 */
export async function openCursorWith(source: CursorKeySource, cursor: string, now: number): Promise<CursorContent> {
  try {
    return openCursor(cursor, await source.held(), now);
  } catch (error) {
    if (!(error instanceof UnknownCursorKeyError)) throw error;
    const renewed = await source.renewed();
    if (renewed === undefined) throw error;
    return openCursor(cursor, renewed, now);
  }
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
