// AWS's time for the tools. An operator's machine is not AWS: its clock may be minutes or hours off,
// so a tool decides no stamp, revocation or window on it. It reads AWS's time from the `Date` header
// of DynamoDB's replies on the client it writes through: a reply bounds the offset between this
// machine's monotonic clock and AWS's to a second plus the reply's round trip, and probes sent so
// that a tick of that whole-second clock falls mid-reply halve what is left, until the offset is
// known to within the precision asked for. Every use checks that the offset is still known within
// the allowance (SYNC_TIMING.clockErrorMs): a command that cannot know it so (replies too slow, or
// without a Date) refuses in one line before it writes. A clock off by any amount is corrected, as
// only the measured offset reaches a stamp (docs/design.md#a-tools-clock).
import { GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SYNC_TIMING } from '../../lib/contract/sync';
import { TABLES } from '../../lib/contract/tables';
import { learnFromReplies, type Bound, type StampClock } from '../../lib/stores/aws-clock';
import { AdminFailure } from './errors';

export const TOOL_CLOCK = {
  /** The most a tool's clock may be off AWS's, the declared allowance: beyond it nothing is written. */
  allowanceMs: SYNC_TIMING.clockErrorMs,
  /**
   * What a stamp waits for: half the allowance, so a stamp keeps within it even were DynamoDB's
   * Date rounded to its second rather than cut (HTTP's date format has whole seconds; AWS does not
   * say which). A revocation or a window needs no more than the allowance.
   */
  stampMs: SYNC_TIMING.clockErrorMs / 2,
  /**
   * How fast this machine's monotonic clock may part from AWS's, as a fraction: ten times a
   * quartz clock's usual error, and the most Linux's time discipline slews a clock (500 ppm).
   */
  drift: 500e-6,
  /** Probes one check sends at most before it refuses. */
  probes: 6,
} as const;

/** AWS's time as a tool has it, by which it decides stamps, revocations and windows; now() refuses unless known within the allowance. */
export interface ToolClock extends StampClock {
  /** Resolves once now() is within `withinMs` of AWS's time, probing DynamoDB as need be; refuses when it cannot be brought within the allowance. */
  check(withinMs?: number): Promise<void>;
  /** AWS's time, checked within the allowance. */
  checkedNow(): Promise<number>;
}

/** A command that would have decided something by a clock not known within the allowance: nothing is written. */
export class ClockRefused extends AdminFailure {}

/** A clock taken as AWS's without a check: a test's, whose embedded server runs on this machine's clock. */
export function givenClock(now: () => number): ToolClock {
  return { now, check: async () => undefined, checkedNow: async () => now() };
}

/** The key a probe reads: no key's id looks like it (key_ and 20 hexadecimal digits), so it reads nothing. */
const PROBE_KEY = 'clock-probe';

const realTime = {
  elapsed: () => performance.now(),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms))),
};

export class CheckedAwsClock implements ToolClock {
  /** The offset's bounds, and when (monotonic ms) they were last narrowed: they widen by the drift since. */
  private known: (Bound & { at: number }) | undefined;
  private replies = 0;
  private lastReplyMs = 0;
  private fastestReplyMs = Infinity;

  constructor(
    /** One cheap request on the client whose replies are learnt from (its failure is a reply too). */
    private probe: () => Promise<unknown> = () => Promise.reject(new Error('the clock reads no client')),
    /** This machine's monotonic clock and a wait on it; virtual ones in tests. */
    private readonly time: { elapsed: () => number; sleep: (ms: number) => Promise<void> } = realTime,
  ) {}

  /** Reads AWS's time from the replies of `client` (the tool's one-attempt client), probing with a GetItem of `table`. */
  reading(client: DynamoDBClient, table: string): this {
    const key = { [TABLES.apiKeys.partitionKey.name]: { S: PROBE_KEY } };
    this.probe = () => client.send(new GetItemCommand({ TableName: table, Key: key }));
    learnFromReplies(client, this.time.elapsed, (bound, received) => this.learn(bound, received), 'toolClockSample');
    return this;
  }

  /** One reply's bound on the offset, received at `received`: narrows what is known, or replaces it when they disagree. */
  learn(bound: Bound, received: number): void {
    this.replies++;
    this.lastReplyMs = bound.high - bound.low - 1_000;
    this.fastestReplyMs = Math.min(this.fastestReplyMs, this.lastReplyMs);
    const known = this.widened(received);
    const low = Math.max(bound.low, known?.low ?? -Infinity);
    const high = Math.min(bound.high, known?.high ?? Infinity);
    // Disjoint, one of them is wrong (this machine slept, a reply's date was off): the newest stands.
    this.known = low <= high ? { low, high, at: received } : { ...bound, at: received };
  }

  now(): number {
    const at = this.time.elapsed();
    const known = this.widened(at);
    if (!known || (known.high - known.low) / 2 > TOOL_CLOCK.allowanceMs) throw this.refusal();
    return Math.floor(at + (known.low + known.high) / 2);
  }

  async check(withinMs: number = TOOL_CLOCK.allowanceMs): Promise<void> {
    for (let sent = 0; this.uncertaintyMs() > withinMs && sent < TOOL_CLOCK.probes; sent++) {
      // No probe narrows the offset below half a round trip.
      if (this.replies > 0 && this.fastestReplyMs / 2 > TOOL_CLOCK.allowanceMs) break;
      if (this.known) await this.time.sleep(this.cutAt() - this.time.elapsed());
      const replies = this.replies;
      try {
        await this.probe();
      } catch (error) {
        if (this.replies === replies) throw error;
      }
      // A reply without a usable Date: no later one will have one either.
      if (this.replies === replies) break;
    }
    if (this.uncertaintyMs() > TOOL_CLOCK.allowanceMs) throw this.refusal();
  }

  async checkedNow(): Promise<number> {
    await this.check();
    return this.now();
  }

  /** How far now() may be off AWS's time: half the offset's known range. */
  uncertaintyMs(): number {
    const known = this.widened(this.time.elapsed());
    return known ? (known.high - known.low) / 2 : Infinity;
  }

  /** What is known of the offset at `at`, widened by the drift since it was learnt. */
  private widened(at: number): Bound | undefined {
    if (!this.known) return undefined;
    const drift = TOOL_CLOCK.drift * Math.abs(at - this.known.at);
    return { low: this.known.low - drift, high: this.known.high + drift };
  }

  /**
   * When to send a probe for AWS's clock to tick mid-reply were the offset the middle of what is
   * known: the reply's date then says on which side of the middle it is, halving the range.
   */
  private cutAt(): number {
    const now = this.time.elapsed();
    const known = this.widened(now) ?? { low: 0, high: 0 };
    const middle = (known.low + known.high) / 2;
    const halfway = this.lastReplyMs / 2;
    const tick = Math.ceil((now + halfway + middle) / 1_000) * 1_000;
    return tick - middle - halfway;
  }

  private refusal(): ClockRefused {
    const why =
      this.replies === 0
        ? "DynamoDB's replies carry no usable Date header"
        : `DynamoDB's replies took ${seconds(this.fastestReplyMs)} s or more, which places it only within ` +
          `±${seconds(this.uncertaintyMs())} s; try again on a faster connection`;
    return new ClockRefused(
      `This machine's clock cannot be checked against AWS's within ${seconds(TOOL_CLOCK.allowanceMs)} s, ` +
        `so nothing is written by it: ${why}`,
    );
  }
}

const seconds = (ms: number) => String(Number((ms / 1_000).toFixed(1)));
