// The clock updatedAt is stamped from: the machine's, checked against AWS's. Each DynamoDB reply's
// `Date` header (whole seconds) says AWS's time lay in [date, date + 1 s) at some instant between
// sending and receiving, which bounds this machine's offset from AWS. The offset is the value
// nearest 0 that every recent reply allows: 0 on Lambda (Amazon Time Sync Service keeps its clock
// AWS's), the laptop's error on an operator's machine, however far off it is. The SDK keeps its own
// offset for signing, from the same header, but only to the second (docs/design.md#exact-incremental-sync).
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

export interface StampClock {
  /** Epoch ms on AWS's clock, within SYNC_TIMING.clockErrorMs. */
  now(): number;
}

/** Replies whose bounds are intersected: enough to narrow to well under a second, few enough to follow a jump. */
const SAMPLES = 32;

interface Bound {
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

/** A clock on `base` (the machine's by default) corrected by the `Date` of `client`'s replies. */
export function awsClock(client: DynamoDBClient, base: () => number = Date.now): StampClock {
  const bounds: Bound[] = [];
  let offset = 0;
  const learn = (headers: Record<string, string> | undefined, sent: number) => {
    const date = headers?.date ?? headers?.Date;
    const bound = date === undefined ? undefined : replyBound(date, sent, base());
    if (!bound) return;
    bounds.push(bound);
    if (bounds.length > SAMPLES) bounds.shift();
    offset = offsetWithin(bounds);
  };
  client.middlewareStack.add(
    (next) => async (args) => {
      const sent = base();
      try {
        const result = await next(args);
        learn((result.response as { headers?: Record<string, string> }).headers, sent);
        return result;
      } catch (error) {
        learn((error as { $response?: { headers?: Record<string, string> } }).$response?.headers, sent);
        throw error;
      }
    },
    { step: 'deserialize', name: 'awsClockSample', override: true },
  );
  return { now: () => base() + offset };
}
