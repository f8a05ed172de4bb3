// The clock updatedAt is stamped from in the service: the machine's, checked against AWS's. Each
// DynamoDB reply's `Date` header (whole seconds) says AWS's time lay in [date, date + 1 s) at some
// instant between sending and receiving, which bounds this machine's offset from AWS. The offset is
// the value nearest 0 that every recent reply allows: 0 on Lambda, whose clock is AWS's (Amazon Time
// Sync Service). The tools, whose machines' clocks are not AWS's, read AWS's time from the same
// replies more closely and refuse to write without it (tools/shared/aws-time.ts). The SDK keeps its
// own offset for signing, from the same header, to the second (docs/design.md#exact-incremental-sync).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface StampClock {
  /** Epoch ms on AWS's clock, within SYNC_TIMING.clockErrorMs. */
  now(): number;
}

/** Replies whose bounds are intersected: enough to narrow to well under a second, few enough to follow a jump. */
const SAMPLES = 32;

/** What one or more replies allow the offset (AWS's clock minus the local one, ms) to be. */
export interface Bound {
  low: number;
  high: number;
}

/** The offset (AWS minus local) that every bound allows, nearest 0; 0 when the bounds disagree or are none. */
export function offsetWithin(bounds: readonly Bound[]): number {
  if (bounds.length === 0) return 0;
  const low = Math.max(...bounds.map((b) => b.low));
  const high = Math.min(...bounds.map((b) => b.high));
  if (low > high) return offsetWithin(bounds.slice(-1));
  return Math.min(Math.max(0, low), high);
}

/** The bound one reply puts on the offset: AWS's time was in [date, date + 1 s) between `sent` and `received`. */
export function replyBound(dateHeader: string, sent: number, received: number): Bound | undefined {
  const date = Date.parse(dateHeader);
  if (Number.isNaN(date)) return undefined;
  return { low: date - received, high: date + 1_000 - sent };
}

/**
 * Calls `learn` with the bound each of `client`'s replies, failures included, puts on the offset of
 * `base` (a local clock, ms) from AWS's, and when the reply came; `name` tells two learners apart.
 */
export function learnFromReplies(
  client: DynamoDBClient,
  base: () => number,
  learn: (bound: Bound, received: number) => void,
  name = 'awsClockSample',
): void {
  const take = (headers: Record<string, string> | undefined, sent: number) => {
    const date = headers?.date ?? headers?.Date;
    const received = base();
    const bound = date === undefined ? undefined : replyBound(date, sent, received);
    if (bound) learn(bound, received);
  };
  client.middlewareStack.add(
    (next) => async (args) => {
      const sent = base();
      try {
        const result = await next(args);
        take((result.response as { headers?: Record<string, string> }).headers, sent);
        return result;
      } catch (error) {
        take((error as { $response?: { headers?: Record<string, string> } }).$response?.headers, sent);
        throw error;
      }
    },
    { step: 'deserialize', name, override: true },
  );
}

/** A clock on `base` (the machine's by default) corrected by the `Date` of `client`'s replies. */
export function awsClock(client: DynamoDBClient, base: () => number = Date.now): StampClock {
  const bounds: Bound[] = [];
  let offset = 0;
  learnFromReplies(client, base, (bound) => {
    bounds.push(bound);
    if (bounds.length > SAMPLES) bounds.shift();
    offset = offsetWithin(bounds);
  });
  return { now: () => base() + offset };
}
