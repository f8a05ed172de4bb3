// The stages' AWS WAF rate-based rule per client address (lib/contract/address-limit.ts), as the
// local gateway applies it in front of everything else, on the gateway's clock. Every request of an
// address is counted, blocked ones too: "a rate-based rule counts incoming requests". WAF does not
// decide on each request: it checks the rate "frequently", and starts (and stops) rate limiting an
// address up to a delay after its rate crosses the limit ("Usually, this delay is below 30 seconds",
// Rate-based rule caveats). So each address is judged at every mark of that delay on the clock, on
// the window that ends there, and the judgement holds until the next mark: a flood passes until the
// first mark after it went over the limit, and an address stays blocked until a mark finds its
// window at or under the limit. Requests are counted in one-second buckets.
import { WAF_RATE_RULE, type AddressLimit } from '../../lib/contract/address-limit';

const MARK_MS = WAF_RATE_RULE.delaySeconds * 1000;

interface Tally {
  /** Requests by epoch second. */
  seconds: Map<number, number>;
  /** The mark the judgement was made at, and the judgement. */
  mark: number;
  blocked: boolean;
}

export class AddressRateRule {
  private readonly addresses = new Map<string, Tally>();

  constructor(
    private readonly rule: AddressLimit,
    private readonly now: () => number,
    /** Addresses tracked at most (the oldest goes first), as the gateway bounds its other tables. */
    private readonly maxAddresses = 10_000,
  ) {}

  /** Counts a request of `address`; true when the rule blocks it. */
  blocks(address: string): boolean {
    const now = this.now();
    const mark = Math.floor(now / MARK_MS) * MARK_MS;
    let tally = this.addresses.get(address);
    if (!tally) {
      if (this.addresses.size >= this.maxAddresses) this.addresses.delete(this.addresses.keys().next().value as string);
      tally = { seconds: new Map(), mark, blocked: false };
      this.addresses.set(address, tally);
    } else if (tally.mark !== mark) {
      tally.mark = mark;
      tally.blocked = this.countBefore(tally, mark) > this.rule.limit;
    }
    const second = Math.floor(now / 1000);
    tally.seconds.set(second, (tally.seconds.get(second) ?? 0) + 1);
    return tally.blocked;
  }

  /** The requests of the window that ends at `mark`; older buckets are dropped. */
  private countBefore(tally: Tally, mark: number): number {
    const from = mark - this.rule.windowSeconds * 1000;
    let count = 0;
    for (const [second, requests] of tally.seconds) {
      if (second * 1000 < from) tally.seconds.delete(second);
      else if (second * 1000 < mark) count += requests;
    }
    return count;
  }
}
