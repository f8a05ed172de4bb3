import { Readable } from 'node:stream';
import type { Context } from 'aws-lambda';
import {
  apiHandler,
  streamingApiHandler,
  type ApiEvent,
  type ApiHandlerDeps,
  type ApiResult,
  type StreamingLambdaHandler,
} from './api-handler';
import { LISTINGS_IN_FLIGHT } from '../contract/plans';
import { StageListingsFullError, TooManyListingsError, type ListingsInFlight } from '../stores/listings-in-flight';
import { uncount } from './rate-limit';
import { ListingTooLargeUncompressedError } from '../core/orders/order-errors';
import { ListingRun } from './listing-run';
import { tooLargeUncompressed, UNCOMPRESSED_LISTING_MAX_ORDERS } from '../core/orders/listing-size';
import { businessMetrics } from './metrics';
import { logger } from '../commons/logger';
import { parseOrderId } from '../core/orders/order-id';
import { BUDGETED_STAMPED_ATTEMPTS } from '../core/sync/stamps';
import { ordersJsonChunks } from '../core/orders/orders-json';
import { measuredListing } from './listing-metrics';
import type { OrdersRepository, ScanOptions } from '../stores/orders';
import { routeByOperation } from '../contract/routes';
import { ACCEPT_ENCODING, CONTENT_ENCODING, VARY } from '../contract/headers';
import { chooseContentCoding, requestHeader } from './content-coding';
import { encodeChunks } from './encoded-stream';

export interface OrdersHandlerDeps extends ApiHandlerDeps {
  orders: Pick<OrdersRepository, 'listingPages' | 'cancel'> &
    Partial<Pick<OrdersRepository, 'suggestedSegments' | 'approximateOrderCount' | 'orderCountBound'>>;
  /**
   * The per-key cap on listings in flight (LISTINGS_IN_FLIGHT by plan). The deployed entry and the
   * local stack always give it; without it (handler tests with stand-in repositories) there is no cap.
   */
  listings?: Pick<ListingsInFlight, 'acquire'>;
  /** From this approximate order count an uncompressed listing is refused; the deployed one by default. */
  uncompressedMaxOrders?: number;
  /**
   * How listOrders reads the table. `segments: 'auto'` sizes the parallel Scan to the table
   * (OrdersRepository.suggestedSegments); small pages keep memory flat and the first byte early.
   */
  scan?: Omit<ScanOptions, 'segments'> & { segments?: number | 'auto' };
}

/**
 * DynamoDB calls each operation's work makes once the limiter admitted it, in the common case: the
 * limiter's time budget keeps that much time (lib/core/limiter/budget.ts). A cancel is one stamped
 * write: at most STAMPED_ATTEMPTS UpdateItems, of which the budget keeps time for
 * BUDGETED_STAMPED_ATTEMPTS (lib/core/sync/stamps.ts). A listing takes its lease and reads its
 * first page before answering.
 */
export const WORK_CALLS = { cancelOrder: BUDGETED_STAMPED_ATTEMPTS, listOrders: 2 } as const;

/**
 * The deployed reading: parallel segments once the table is large; each segment's first page of
 * 1,000 orders, so the first byte goes out as soon as before, and then pages of 2,500 (about 540 KB
 * of DynamoDB's 1 MB a page), so fewer requests, each costing the SDK and HTTP alike, carry the
 * listing (docs/design.md#the-listings-transcoder).
 */
export const DEPLOYED_SCAN = { firstPageSize: 1_000, pageSize: 2_500, segments: 'auto' } as const;

async function scanOptions(deps: OrdersHandlerDeps): Promise<ScanOptions> {
  const { segments, ...rest } = deps.scan ?? {};
  if (segments !== 'auto') return { ...rest, segments };
  return { ...rest, segments: deps.orders.suggestedSegments ? await deps.orders.suggestedSegments() : 1 };
}

/**
 * A failure after the first byte cannot change the status any more. It is logged and rethrown,
 * which ends the stream early: the client sees invalid JSON, never a silently short array.
 */
async function* failLoudly(chunks: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  try {
    yield* chunks;
  } catch (error) {
    logger.error('listOrders failed while streaming; the response is cut short', error as Error);
    throw error;
  }
}

/**
 * Reads the first page before anything is sent, so a table that cannot be read at all is still an
 * ordinary 503 with its headers rather than a 200 cut short.
 */
async function withFirstPageRead<T>(pages: AsyncIterable<T>): Promise<AsyncIterable<T>> {
  const iterator = pages[Symbol.asyncIterator]();
  const first = await iterator.next();
  return (async function* () {
    if (first.done) return;
    yield first.value;
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) yield next.value;
  })();
}

/**
 * listOrders: every order, written as Scan pages arrive, so memory does not grow with the table.
 * The body is compressed when Accept-Encoding allows it, each page flushed as it is written.
 *
 * Before any Scan: an uncompressed listing of a store known to be too large for one response is
 * refused (406), and the listing takes one of its key's slots (429 when all are taken). The run
 * ends, and frees the slot, when the invocation does: the body sent, failed or its client gone.
 */
export function makeListOrdersHandler(deps: OrdersHandlerDeps): StreamingLambdaHandler {
  const runs = new WeakMap<ApiEvent, ListingRun>();
  const maxOrders = deps.uncompressedMaxOrders ?? UNCOMPRESSED_LISTING_MAX_ORDERS;
  const handler = streamingApiHandler(
    routeByOperation('listOrders'),
    deps,
    async (event, caller, context, deadline) => {
      const coding = chooseContentCoding(requestHeader(event, ACCEPT_ENCODING));
      const sizeOf = deps.orders.orderCountBound ?? deps.orders.approximateOrderCount;
      if (coding === 'identity' && sizeOf) {
        const approximate = await sizeOf.call(deps.orders);
        if (tooLargeUncompressed(approximate, maxOrders))
          throw new ListingTooLargeUncompressedError(approximate, maxOrders);
      }
      const remaining = context.getRemainingTimeInMillis?.();
      const lease = await deps.listings
        ?.acquire(caller.keyId, LISTINGS_IN_FLIGHT[caller.plan], remaining, deadline)
        .catch(async (error: unknown) => {
          // A listing refused for lack of room (the key's, or the stage's: a 503) costs the key no
          // request slot, so a client that waits and tries again is never pushed toward a rate
          // limit or a ban by it.
          if (error instanceof TooManyListingsError || error instanceof StageListingsFullError) await uncount(event);
          throw error;
        });
      const run = new ListingRun(lease, context);
      runs.set(event, run);
      const pages = await withFirstPageRead(deps.orders.listingPages(await scanOptions(deps)));
      const body = Readable.from(
        run.counted(encodeChunks(failLoudly(measuredListing(pages, ordersJsonChunks)), coding)),
        { objectMode: false },
      );
      run.attach(body);
      return {
        statusCode: 200,
        headers: {
          'Content-Type': 'application/json',
          [VARY]: ACCEPT_ENCODING,
          ...(coding === 'identity' ? {} : { [CONTENT_ENCODING]: coding }),
        },
        body,
      };
    },
    WORK_CALLS.listOrders,
  );
  return async (event, responseStream, context) => {
    // A response stream that closes before the body is done means the client has gone: the run
    // ends there (the Scan stops after the page in flight, the slot is freed) rather than when the
    // pipe into the stream gives up, which Lambda may not make it do before the deadline.
    const hungUp = () => {
      if (!responseStream.writableFinished) void runs.get(event)?.end();
    };
    responseStream.once('close', hungUp);
    responseStream.once('error', hungUp);
    try {
      await handler(event, responseStream, context);
    } finally {
      responseStream.off('close', hungUp);
      responseStream.off('error', hungUp);
      await runs.get(event)?.end();
    }
  };
}

export function makeCancelOrderHandler(deps: OrdersHandlerDeps) {
  const handler = apiHandler(
    routeByOperation('cancelOrder'),
    deps,
    async (event, _caller, _context, deadline) => {
      const id = parseOrderId(event.pathParameters?.orderId);
      await deps.orders.cancel(id, deadline);
      return { statusCode: 204, headers: {}, body: '' };
    },
    WORK_CALLS.cancelOrder,
  );
  // Counted on the final answer, after the domain errors have become statuses.
  return async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const result = await handler(event, context);
    businessMetrics.cancel(result.statusCode);
    return result;
  };
}
