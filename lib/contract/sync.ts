// The v2 listing's query, declared once: its parameters and page sizes. Read by the query parser,
// the OpenAPI document, the client and the tests.
import { ORDER_STATUSES } from './order';

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

/** The statuses a page can be filtered by: every status. */
export const SYNC_STATUSES = ORDER_STATUSES;

/**
 * The environment variable that names (by ARN) the secret holding a deployed function's cursor key,
 * which the function reads at run time; never the key itself (lib/root/cursor-key.ts).
 */
export const CURSOR_KEY_SECRET_ENV = 'CURSOR_KEY_SECRET_ARN';
