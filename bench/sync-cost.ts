// What the sync and the listing bench/suites/sync.ts measured would cost a client's account at the
// list prices declared in infra/listing-cost.ts, over the month of reads that file prices for v1
// (PROD_LOAD: 1.5 M a month): egress at the bytes measured, and DynamoDB reads at the items read.

import { egressPrice, PRICES, PROD_LOAD, TYPICAL_ORDER_ITEM_BYTES } from '../infra/listing-cost';
import type { ReadFigures } from './suites/sync';

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
