// The v2 listing's filters, each declared once with every part a filter needs: its OpenAPI
// parameter (lib/contract/sync-operation.ts), how the request's text is read (the parser,
// lib/core/sync/query.ts), what a sealed cursor may hold for it (lib/core/sync/cursor.ts) and its
// part of a page's index read (lib/stores/order-pages.ts). Keyed by SyncFilter: a filter added to
// SYNC_FILTERS (./sync.ts) without a declaration, or with one that lacks a part, does not compile.
import { normalisedDateTime } from './date-time';
import type { JsonObject } from './openapi/schemas';
import { isOrderStatus } from './order';
import { listsDepartures, SYNC_STATUSES, SYNC_TEXT_LIMITS, type SyncFilter, type SyncFilters } from './sync';
import type { SyncedOrder } from './synced-order';
import { ORDER_INDEXES, statusShard, type IndexSpec } from './tables';

/** The value a walk holds for a filter. */
export type SyncFilterValue<F extends SyncFilter> = NonNullable<SyncFilters[F]>;

/**
 * What a filtered page reads: one Query per shard of an index of the orders table, from a least
 * sort key, telling apart the orders that left the walk's status. The store reads every change
 * (the by-update index, partition `all#<shard>`) from the start, all listed, unless a filter says
 * otherwise.
 */
export interface IndexRead {
  /** The index read and each shard's partition on it. */
  partition: { index: IndexSpec; key(shard: number): string };
  /** The least sort key read (at or after); the sort key begins with updatedAt. */
  from: string;
  /** Whether an order read is departed (listed apart, as `departed`) rather than listed. */
  departed(order: SyncedOrder): boolean;
}

/** A filter's part of the read: at least one of its parts, so a filter that applies none does not compile. */
export type IndexReadPart = { [K in keyof IndexRead]: Pick<IndexRead, K> & Partial<IndexRead> }[keyof IndexRead];

export interface SyncFilterDeclaration<F extends SyncFilter> {
  /** Its OpenAPI Parameter object's description and schema (in the query, optional, named as the filter). */
  parameter: { description: string; schema: JsonObject };
  /** The request's text as the walk holds it, or what is wrong with it (400 INVALID_QUERY's message). */
  parse(text: string): { value: SyncFilterValue<F> } | { refused: string };
  /** Whether a value read from a sealed cursor is one the filter can hold (else INVALID_CURSOR). */
  holds(value: unknown): value is SyncFilterValue<F>;
  /** Its part of a filtered page's index read, given the walk's filters. */
  read(value: SyncFilterValue<F>, filters: SyncFilters): IndexReadPart;
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

export const SYNC_FILTER_DECLARATIONS: { [F in SyncFilter]: SyncFilterDeclaration<F> } = {
  status: {
    parameter: { description: 'Only orders with this status.', schema: { type: 'string', enum: [...SYNC_STATUSES] } },
    parse: (text) =>
      isOrderStatus(text) ? { value: text } : { refused: `must be one of ${SYNC_STATUSES.join(', ')}` },
    holds: isOrderStatus,
    // Alone, its own partitions of the by-status index. With updatedSince, every change since (the
    // walk lists departures): the orders now of another status are the departed ones.
    read: (status, filters) =>
      listsDepartures(filters)
        ? { departed: (order) => order.status !== status }
        : { partition: { index: ORDER_INDEXES.byStatus, key: (shard) => statusShard(status, shard) } },
  },
  updatedSince: {
    parameter: {
      description:
        'Only orders whose `updatedAt` is at or after this instant (RFC 3339 date-time, any offset), ' +
        "in ascending `updatedAt`. Not later than the server's time: a later instant is 400 `INVALID_QUERY`, " +
        `whose message gives the server's time. At most ${SYNC_TEXT_LIMITS.updatedSince} characters (a fraction to ` +
        'the nanosecond with a numeric offset); a longer value is 400 `INVALID_QUERY`.',
      schema: { type: 'string', format: 'date-time', maxLength: SYNC_TEXT_LIMITS.updatedSince },
    },
    parse(text) {
      const most = SYNC_TEXT_LIMITS.updatedSince;
      if (text.length > most) return { refused: `is ${text.length} characters long, more than ${most}` };
      const normalised = normalisedDateTime(text);
      return normalised === undefined ? { refused: dateTimeHint(text) } : { value: normalised };
    },
    holds: (value) => typeof value === 'string',
    read: (since) => ({ from: since }),
  },
};
