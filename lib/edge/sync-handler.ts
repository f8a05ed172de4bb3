// GET /v2/store/orders: one page of orders, filtered by status or updatedSince, with a sealed cursor
// to the next (and, with both filters, the orders that left the status). Same middleware as v1
// (auth, limiter, error mapping): each page is one request. The last page's watermark stands back
// further while the index-lag canary measures more lag than the settling time allows for, and
// vouches for nothing new while the canary cannot (docs/design.md#the-index-lag-canary).
import { syncedOrderJson } from '../contract/synced-order';
import { routeByOperation } from '../contract/routes';
import { SYNC_PARAMETERS } from '../contract/sync';
import {
  cursorFilters,
  openCursorWith,
  sealCursor,
  type CursorKeySource,
  type PagePosition,
} from '../core/sync/cursor';
import { lagHold, type CanaryRecord, type LagTiming } from '../core/sync/index-lag';
import { heldWatermarkMs, walkWatermark } from '../core/sync/watermark';
import type { Deadline } from '../commons/deadline';
import { parseSyncQuery } from '../core/sync/query';
import type { OrderPages } from '../stores/order-pages';
import { apiHandler, type ApiHandlerDeps } from './api-handler';
import { withEncodedBody } from './encoded-body';

export interface SyncHandlerDeps extends ApiHandlerDeps {
  pages: Pick<OrderPages, 'page'>;
  /** The walks' clock: AWS's, as the writers' stamps are (lib/stores/aws-clock.ts). */
  now: () => number;
  /** How far a walk's watermark stands behind its start (lib/contract/sync.ts settleMs). */
  settleMs: number;
  /** The HMAC keys cursors are sealed and opened with (every function of a deployment shares them). */
  cursorKeys: CursorKeySource;
  /**
   * The index-lag canary's record, read for a walk's last page, and the rules' timing. Absent only
   * where no canary runs (a test stack that trusts the declared index lag): the deployed functions
   * and `npm start` read it.
   */
  lag?: { record: (deadline?: Deadline) => Promise<CanaryRecord | undefined>; timing: LagTiming };
}

/** The last page's watermark: held back as the canary's record says, when there is a canary. */
async function watermarkOf(
  deps: SyncHandlerDeps,
  walk: { started: number; now: number; since: string | undefined },
  deadline: Deadline | undefined,
): Promise<string> {
  if (deps.lag === undefined) return walkWatermark(walk.started, deps.settleMs);
  const record = await deps.lag.record(deadline);
  const hold = lagHold(record, { startedMs: walk.started, nowMs: walk.now }, deps.lag.timing);
  const sinceMs = walk.since === undefined ? undefined : Date.parse(walk.since);
  const held = heldWatermarkMs(
    {
      startedMs: walk.started,
      settleMs: deps.settleMs,
      indexLagMs: deps.lag.timing.indexLagMs,
      ...(sinceMs === undefined ? {} : { sinceMs }),
    },
    hold,
  );
  return new Date(held).toISOString();
}

/**
 * The next page's link (RFC 8288), as a reference relative to this request's own URL: it holds
 * wherever the API is mounted (execute-api stage, custom domain base path, the local stack).
 */
function nextLink(cursor: string, limit: number): string {
  const query = new URLSearchParams({ [SYNC_PARAMETERS.cursor]: cursor, [SYNC_PARAMETERS.limit]: String(limit) });
  return `<?${query.toString()}>; rel="next"`;
}

/** The route's handler: its pages in the coding the request accepts (lib/edge/encoded-body.ts). */
export function makeListOrdersV2Handler(deps: SyncHandlerDeps) {
  return withEncodedBody(pageHandler(deps));
}

function pageHandler(deps: SyncHandlerDeps) {
  return apiHandler(routeByOperation('listOrdersV2'), deps, async (event, _caller, _context, deadline) => {
    const now = deps.now();
    const query = parseSyncQuery(event.multiValueQueryStringParameters ?? null, now);
    let filters = query.filters;
    let position: PagePosition | undefined;
    let started = now;
    // The keys first: a page whose next cursor could not be sealed is not read (a 503 before any work).
    await deps.cursorKeys.held();
    if (query.cursor !== undefined) {
      const content = await openCursorWith(deps.cursorKeys, query.cursor, now);
      filters = cursorFilters(content, query.filters);
      position = content.position;
      started = content.started;
    }
    const page = await deps.pages.page(filters, position, query.limit, deadline);
    const next = page.next && sealCursor({ filters, position: page.next, started }, await deps.cursorKeys.held());
    const orders = page.orders.map(syncedOrderJson).join(',');
    const departed = page.departed ? `,"departed":[${page.departed.map(syncedOrderJson).join(',')}]` : '';
    const tail = next
      ? `,"nextCursor":${JSON.stringify(next)}`
      : `,"watermark":${JSON.stringify(await watermarkOf(deps, { started, now, since: filters.updatedSince }, deadline))}`;
    return {
      statusCode: 200,
      headers: { 'Content-Type': 'application/json', ...(next ? { Link: nextLink(next, query.limit) } : {}) },
      body: `{"orders":[${orders}]${departed}${tail}}`,
    };
  });
}
