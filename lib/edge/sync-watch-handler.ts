// The sync watch: the orders table's stream consumer (functions/sync-watch.ts). For every change it
// measures how late the change landed against its stamp; one a walk could have missed (landed later
// than the settling time allows) it re-stamps, so every later walk delivers it; one stamped ahead of
// AWS's clock it counts. It publishes the batch's worst lateness and its counts (EMF), and names the
// first record it could not finish, so Lambda retries from there (ReportBatchItemFailures). A batch
// may come twice, and its own re-stamps come back through the stream: a re-stamp is conditional on
// the stamp it replaces, and a re-stamp's record is judged by its own, new, stamp, so neither a
// repeat nor the watch's own writes make it write again (docs/design.md#the-change-stream). Its
// re-stamps carry the invocation's deadline, DEADLINE_MARGIN_MS before its timeout: none is sent
// after the watch has given up on its batch (Lambda may thaw a frozen environment much later).
// The index-lag canary's sentinel is no order: its records are skipped, but for the one that asks
// for a sweep of an episode of index lag (docs/design.md#the-index-lag-canary), which the watch does
// then, re-stamping every order the window holds; a sweep it cannot finish names that record.
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBBatchResponse, DynamoDBStreamEvent } from 'aws-lambda';
import { withinInvocation, type Deadline } from '../commons/deadline';
import { logger } from '../commons/logger';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { SYNC_TIMING } from '../contract/sync';
import { judgeLanding, latenessAtMostMs, type WatchBounds } from '../core/sync/lateness';
import { repairAskedBy } from '../stores/index-canary';
import type { IndexLagRepair } from '../stores/index-lag-repair';
import { orderChangeOf } from '../stores/order-changes';
import type { OrderRestamps } from '../stores/order-restamps';
import { businessMetrics } from './metrics';

export interface SyncWatchDeps {
  restamps: Pick<OrderRestamps, 'restamp'>;
  /** The sweep of an episode of index lag the canary asks for; without it such a record is skipped too. */
  lagRepair?: Pick<IndexLagRepair, 'sweep'>;
  /**
   * The bounds changes are judged by, read once a batch: the declared timing, or wider while a
   * measurement (the index-lag canary) says the indexes lag further behind.
   */
  bounds: () => WatchBounds | Promise<WatchBounds>;
  /** The deadline's timers; the real ones unless a test runs on a virtual clock. */
  timers?: Timers;
  /** How long after it ended an unanswered re-stamp may still land (SYNC_TIMING.unansweredLandingMs by default). */
  landingMs?: number;
}

/** What one batch came to: the metrics it publishes. */
export interface WatchedBatch {
  /** Changes judged: records of an order with a stamp and a creation time. */
  watched: number;
  /** The most any of them can have landed after its stamp; absent when none was judged. */
  latenessMaxMs?: number;
  restamped: number;
  stampedAhead: number;
  /** Orders re-stamped by a sweep of an episode of index lag. */
  swept: number;
}

export type SyncWatchHandler = (event: DynamoDBStreamEvent, context: Context) => Promise<DynamoDBBatchResponse>;

/**
 * Judges the batch's changes in order; stops at the first it cannot finish (a re-stamp that failed,
 * or found no time left before `deadline`), which Lambda sends again with the rest.
 */
export async function watchBatch(
  event: DynamoDBStreamEvent,
  deps: Pick<SyncWatchDeps, 'restamps' | 'bounds' | 'lagRepair'>,
  deadline?: Deadline,
): Promise<{ batch: WatchedBatch; failedAt?: string }> {
  const bounds = await deps.bounds();
  const batch: WatchedBatch = { watched: 0, restamped: 0, stampedAhead: 0, swept: 0 };
  for (const record of event.Records) {
    const asked = deps.lagRepair && repairAskedBy(record);
    if (asked && deps.lagRepair) {
      try {
        const swept = await deps.lagRepair.sweep(asked, deadline);
        batch.swept += swept;
        logger.warn('episode of index lag swept: its orders re-stamped', { ...asked, restamped: swept });
      } catch (error) {
        logger.error('could not sweep an episode of index lag', { ...asked, error: error as Error });
        return { batch, failedAt: record.dynamodb?.SequenceNumber ?? '' };
      }
      continue;
    }
    const change = orderChangeOf(record);
    const order = change?.after;
    // A removal, an order written before v2 (no stamp) or a record without a creation time: nothing to judge.
    if (change === undefined || order?.updatedAt === undefined || change.createdSeconds === undefined) continue;
    const stamped = { stampMs: Date.parse(order.updatedAt), createdSeconds: change.createdSeconds };
    if (Number.isNaN(stamped.stampMs)) continue;
    batch.watched++;
    const lateness = latenessAtMostMs(stamped);
    batch.latenessMaxMs = Math.max(batch.latenessMaxMs ?? lateness, lateness);
    const landing = judgeLanding(stamped, bounds);
    const facts = { orderId: order.id, updatedAt: order.updatedAt, createdSeconds: change.createdSeconds };
    if (landing === 'ahead') {
      batch.stampedAhead++;
      logger.warn("change stamped ahead of AWS's clock", facts);
    } else if (landing === 'late') {
      try {
        const seen = { id: order.id, status: order.status, updatedAt: order.updatedAt };
        const stamp = await deps.restamps.restamp(seen, deadline);
        // None: the order changed again since (that change has a record of its own) or is gone.
        if (stamp !== undefined) batch.restamped++;
        logger.warn('change landed late: re-stamped', { ...facts, latenessAtMostMs: lateness, restampedAs: stamp });
      } catch (error) {
        logger.error('could not re-stamp a change that landed late', { ...facts, error: error as Error });
        return { batch, failedAt: change.sequenceNumber };
      }
    }
  }
  return { batch };
}

/**
 * The batch is answered (its first unfinished record named) before Lambda's timeout, and only once
 * every re-stamp that went unanswered may have landed: the batch sent again then finds the order as
 * that write left it, as a request's 503 comes after its last possible change.
 */
export function makeSyncWatchHandler(deps: SyncWatchDeps): SyncWatchHandler {
  const timers = deps.timers ?? REAL_TIMERS;
  const landingMs = deps.landingMs ?? SYNC_TIMING.unansweredLandingMs;
  return middy<DynamoDBStreamEvent, DynamoDBBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .handler((event, context) =>
      withinInvocation(context.getRemainingTimeInMillis?.(), timers, landingMs, async (deadline) => {
        const { batch, failedAt } = await watchBatch(event, deps, deadline);
        if (failedAt !== undefined) await deadline?.settled();
        businessMetrics.syncWatch(batch);
        return { batchItemFailures: failedAt === undefined ? [] : [{ itemIdentifier: failedAt }] };
      }),
    );
}
