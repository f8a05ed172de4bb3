// What the sync and the listing bench/suites/sync.ts measured would cost a client's account at the
// list prices declared in infra/listing-cost.ts, over the month of reads that file prices for v1
// (PROD_LOAD: 1.5 M a month): egress at the bytes measured, and DynamoDB reads at the items read.
// And what the sync watch bench/suites/sync-watch.ts measured costs the stage per million changes.

import { CANCEL_WRITE_UNITS, egressPrice, PRICES, PROD_LOAD, TYPICAL_ORDER_ITEM_BYTES } from '../infra/listing-cost';
import { STREAMING_LIMITS } from '../lib/contract/streaming-limits';
import type { ReadFigures } from './suites/sync';
import type { SyncWatchFigures, WatchedBatches } from './suites/sync-watch';

/**
 * A stored order since v2 (the cost model sizes it with the attributes every write adds for the v2
 * indexes). A Scan of the table and a Query of an index (every attribute projected) read the same.
 */
export const SYNCED_ORDER_ITEM_BYTES = TYPICAL_ORDER_ITEM_BYTES;

export interface MonthlyReadCost {
  reads: number;
  egress: number;
  dynamoReads: number;
}

/** `reads` of these figures a month: egress through the tiers, eventually consistent reads at half a unit per 4 KB. */
export function monthlyReadCost(figures: ReadFigures, reads = PROD_LOAD.listingsPerMonth): MonthlyReadCost {
  const egress = egressPrice((reads * figures.bytes) / 1024 ** 3);
  const units = Math.ceil((figures.itemsRead * SYNCED_ORDER_ITEM_BYTES) / 4096) / 2;
  return { reads, egress, dynamoReads: (reads * units * PRICES.dynamoReadPerMillion) / 1e6 };
}

/**
 * The sync watch's cost per million order changes at list prices, with a `lateShare` of them
 * re-stamped: one Lambda request a full batch (fewer changes a batch when they trickle in: at most
 * one invocation a batching window a shard), its duration at the function's memory, the stream's
 * reads (free: "You are not charged for GetRecords API calls invoked by AWS Lambda as part of
 * DynamoDB triggers", aws.amazon.com/dynamodb/pricing/on-demand/; developerguide
 * CostOptimization_StreamsUsage.html: "Read requests made by AWS Lambda-based consumers of DynamoDB
 * Streams are free"), and each re-stamp's writes, whose own record the watch then judges too.
 * A batch's duration is the larger of its wall time here and its CPU time scaled to the function's
 * share of a vCPU (STREAMING_LIMITS.memoryMbPerVcpu MB a vCPU).
 */
export interface WatchCost {
  requests: number;
  compute: number;
  streamReads: number;
  restampWrites: number;
  total: number;
}

export function watchCostPerMillion(figures: SyncWatchFigures, lateShare = 0): WatchCost {
  const cpuShare = Math.min(1, figures.memoryMb / STREAMING_LIMITS.memoryMbPerVcpu);
  const seconds = (b: WatchedBatches) => Math.max(b.wallMsPerBatch, b.cpuMsPerBatch / cpuShare) / 1000;
  // The re-stamps' own records are changes the watch judges (on time) as well.
  const batches = ((1 + lateShare) * 1e6) / figures.batchSize;
  const onTimeShare = 1 / (1 + lateShare);
  const secondsPerBatch = onTimeShare * seconds(figures.onTime) + (1 - onTimeShare) * seconds(figures.late);
  const items = {
    requests: (batches * PRICES.lambdaRequestPerMillion) / 1e6,
    compute: batches * secondsPerBatch * (figures.memoryMb / 1024) * PRICES.lambdaGbSecond,
    streamReads: 0,
    // A re-stamp moves updatedAt, the sort key of both v2 indexes: the write units of a cancel.
    restampWrites: lateShare * CANCEL_WRITE_UNITS * PRICES.dynamoWritePerMillion,
  };
  return { ...items, total: Object.values(items).reduce((a, b) => a + b, 0) };
}
