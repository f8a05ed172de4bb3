// A write that stamps its item's updatedAt: the stamp is taken as each attempt is sent, never
// reused by a retry, and each retry's condition also accepts the stamps of its own earlier attempts,
// so an earlier attempt that landed is stamped again and one that lands after the retry fails its
// condition. Together with the client's per-attempt timeout this bounds how long after its stamp a
// change can reach the table (lib/contract/sync.ts settleMs, docs/design.md#exact-incremental-sync).
import { isDependencyFailure } from './dependency-failure';
import type { StampClock } from './aws-clock';

/** Attempts per write, the first included: the deployed client's count (lib/stores/dynamo.ts). */
export const STAMPED_ATTEMPTS = 3;
const BACKOFF_BASE_MS = 50;

/** The ISO text of a stamp strictly later than `after` (an updatedAt), at `now` when that is later. */
export function stampAfter(now: number, after?: string): string {
  const floor = after === undefined ? -Infinity : Date.parse(after) + 1;
  return new Date(Math.max(now, floor)).toISOString();
}

export interface StampedAttempt {
  /** This attempt's stamp. */
  stamp: string;
  /** The stamps of this write's earlier attempts, any of which may have landed. */
  earlier: readonly string[];
}

/**
 * Runs `attempt` until it answers, each time with a new stamp; a dependency failure (timeout,
 * throttling, 5xx, a lost connection) is retried after a short backoff, anything else is thrown.
 * `after` is read before each attempt: a stamp must be later than the item's current updatedAt.
 */
export async function stampedWrite<T>(
  clock: StampClock,
  attempt: (stamped: StampedAttempt) => Promise<T>,
  after: () => string | undefined = () => undefined,
  attempts = STAMPED_ATTEMPTS,
): Promise<T> {
  const earlier: string[] = [];
  for (let n = 1; ; n++) {
    const floors = [after(), earlier.at(-1)].filter((s): s is string => s !== undefined).sort();
    const stamp = stampAfter(clock.now(), floors.at(-1));
    try {
      return await attempt({ stamp, earlier: [...earlier] });
    } catch (error) {
      if (n >= attempts || !isDependencyFailure(error)) throw error;
      earlier.push(stamp);
      await new Promise((resolve) => setTimeout(resolve, BACKOFF_BASE_MS * 2 ** (n - 1) * Math.random()));
    }
  }
}
