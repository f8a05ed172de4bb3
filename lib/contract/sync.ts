// The v2 listing's query, declared once: its parameters, its filters and page sizes. Read by the
// query parser, the cursor, the store, the OpenAPI document, the client and the tests.
// With its extension: the typed client's NodeNext build compiles this file (client/pages.ts).
import { ORDER_STATUSES, type OrderStatus } from './order.ts';

export const SYNC_PAGE = {
  /** Orders per page when the request gives no `limit`. */
  defaultLimit: 100,
  minLimit: 1,
  maxLimit: 1000,
} as const;

/** The query parameters, by name; any other is refused (INVALID_QUERY). */
export const SYNC_PARAMETERS = {
  limit: 'limit',
  cursor: 'cursor',
  status: 'status',
  updatedSince: 'updatedSince',
} as const;
export type SyncParameter = keyof typeof SYNC_PARAMETERS;

/**
 * The parameters that filter a walk, the others (limit, cursor) addressing its pages: a cursor
 * carries them and holds later pages to them, and a walk with none of them scans the table.
 */
export const SYNC_FILTERS = [SYNC_PARAMETERS.status, SYNC_PARAMETERS.updatedSince] as const;
export type SyncFilter = (typeof SYNC_FILTERS)[number];

/**
 * A walk's filters by name: a status, or the lower bound on updatedAt (given as an RFC 3339
 * date-time; held as the ISO 8601 UTC text with milliseconds that updatedAt uses).
 */
export type SyncFilters = { [F in SyncFilter]?: F extends 'status' ? OrderStatus : string };

/** Whether a walk is unfiltered: it scans the table rather than reading the index. */
export const isUnfiltered = (filters: SyncFilters): boolean =>
  SYNC_FILTERS.every((name) => filters[name] === undefined);

/**
 * Whether a walk's pages list `departed`: the orders changed at or after its updatedSince that are
 * now outside its status, which a replica of that status may still hold. A walk without
 * updatedSince lists the status as it is; without a status nothing can leave the filter.
 */
export const listsDepartures = (filters: SyncFilters): boolean =>
  filters.status !== undefined && filters.updatedSince !== undefined;

/** The statuses a page can be filtered by: every status. */
export const SYNC_STATUSES = ORDER_STATUSES;

/**
 * The environment variable that names (by ARN) the secret holding a deployed function's cursor key,
 * which the function reads at run time; never the key itself (lib/root/cursor-key.ts).
 */
export const CURSOR_KEY_SECRET_ENV = 'CURSOR_KEY_SECRET_ARN';

/** The stack output naming that secret, for its rotation (docs/operations.md#the-v2-cursor-key). */
export const CURSOR_KEY_SECRET_OUTPUT = 'CursorKeySecretArn';

/**
 * How long a walk's cursors open, from the walk's first page; older ones are refused (400
 * INVALID_CURSOR: start again from the watermark). It is also the least time between two rotations
 * of the cursor key: a cursor is sealed with the key current when it is issued, and the deployment
 * opens cursors with the current key and the previous one, so with rotations this far apart every
 * cursor still open was sealed with one of the two (docs/operations.md#the-v2-cursor-key).
 */
export const CURSOR_LIFETIME_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * A function that meets a cursor sealed with neither key it holds reads the key's secret again (a
 * rotation it has not seen: another container, or a new version, may already seal with the new
 * key), at most this often, so forged cursors cannot make it read the secret on every request.
 */
export const CURSOR_KEY_RENEW_MS = 5_000;

/**
 * The timing exact incremental sync relies on (docs/design.md#exact-incremental-sync), declared once:
 * read by the writers (lib/stores/stamped-write.ts), the v2 listing's watermark, the local stack's
 * emulation of AWS's timing, the docs and the tests.
 */
export const SYNC_TIMING = {
  /**
   * The most a stamping or walking clock may be off AWS's. Lambda's clock is AWS's (Amazon Time Sync
   * Service); a tool reads AWS's time from DynamoDB's `Date` replies, and refuses to write when it
   * cannot place it within this (tools/shared/aws-time.ts).
   */
  clockErrorMs: 1_000,
  /**
   * How long after its last attempt was given up a write may still reach the table. Every attempt
   * stamps anew and is cut at the client's per-attempt timeout; a retry's condition turns an
   * earlier attempt that lands after it into a no-op, so only a write whose every attempt went
   * unanswered relies on this margin. AWS documents no bound; this is ours (docs/design.md).
   */
  unansweredLandingMs: 3_000,
  /**
   * Index propagation. AWS: "Write operations propagate to a GSI within 1 second" (re:Post,
   * dynamodb-missing-table-items-gsi), longer "in the unlikely event of a failure"; five times that.
   */
  indexLagMs: 5_000,
  /** A change acknowledged to its writer is delivered by any walk that starts this much later. */
  freshnessMs: 15_000,
} as const;

export type SyncTiming = { readonly [K in keyof typeof SYNC_TIMING]: number };

/**
 * How far a walk's watermark stands behind the walk's start, for writers whose attempts are cut
 * at `attemptTimeoutMs`: a change stamped at or before it has reached the table and its indexes by
 * the time the walk starts, wherever the writer's and the walk's clocks err within the bound.
 */
export function settleMs(timing: SyncTiming, attemptTimeoutMs: number): number {
  return 2 * timing.clockErrorMs + attemptTimeoutMs + timing.unansweredLandingMs + timing.indexLagMs;
}
