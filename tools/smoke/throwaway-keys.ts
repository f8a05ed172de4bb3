// Throwaway keys for the smoke suite, made and revoked through the admin command's own functions,
// so a deployed stage's keys get their API Gateway side exactly as an operator's would, and lose
// it again on revoke: a smoke run leaves no API Gateway key behind (they count against a hard
// quota of 10,000 per account and Region), whether its checks pass, fail or it is interrupted.
import type { Limits } from '../../lib/contract/plans';
import { keysRevoke, newKey } from '../admin/commands/keys';
import type { Output } from '../shared/output';
import type { AdminTarget } from '../admin/target';
import { errorMessage } from '../shared/errors';
import { fail, type Answer } from './http';

const quiet: Output = { out: () => undefined, err: () => undefined };
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The name every throwaway key's record gets: with a run id (`--run`), one run's keys can be found again. */
export function throwawayKeyName(runId?: string): string {
  return runId === undefined ? 'smoke test (throwaway)' : `smoke test (throwaway) run ${runId}`;
}

export interface ThrowawayKey {
  key: string;
  id: string;
}

/** A new enterprise key with these limits, made as `keys create` makes one. */
async function createKey(admin: AdminTarget, limits: Limits, runId?: string): Promise<ThrowawayKey> {
  const { key, record } = await newKey(
    admin,
    { plan: 'enterprise', name: throwawayKeyName(runId), limits },
    new Date(await admin.clock.checkedNow()),
  );
  return { key, id: record.id };
}

export async function revokeKey(admin: AdminTarget, id: string): Promise<void> {
  await keysRevoke.prepare({ values: {}, args: [id] })({ target: admin, out: quiet, clock: admin.clock });
}

/**
 * The throwaway keys of one run. Every key made is remembered until its revoke succeeds, so
 * `revokeAll` at the end (or on Ctrl-C) revokes whatever a failed or interrupted check left.
 * After `revokeAll` has begun no key is made, and one still being made is revoked as it lands.
 */
export class ThrowawayKeys {
  private readonly live = new Set<string>();
  private readonly creating = new Set<Promise<ThrowawayKey>>();
  private readonly revoking = new Map<string, Promise<void>>();
  private closed = false;

  constructor(
    private readonly admin: AdminTarget,
    /** Once aborted (Ctrl-C, SIGTERM), no key is made. */
    private readonly signal?: AbortSignal,
    /** Carried in each key's name, for `npm run smoke -- --clean-up --run ID`. */
    private readonly runId?: string,
  ) {}

  async create(limits: Limits): Promise<ThrowawayKey> {
    if (this.closed || this.signal?.aborted) throw new Error('the smoke run is ending: no new throwaway key');
    const creating = createKey(this.admin, limits, this.runId);
    this.creating.add(creating);
    try {
      const made = await creating;
      this.live.add(made.id);
      if (this.closed || this.signal?.aborted) {
        await this.revoke(made.id);
        throw new Error('the smoke run is ending: the new throwaway key was revoked');
      }
      return made;
    } finally {
      this.creating.delete(creating);
    }
  }

  /**
   * One revoke of a key at a time: on Ctrl-C a key landing just then is revoked by create() and by
   * revokeAll() alike, and two at once deleted its API Gateway key twice side by side.
   */
  revoke(id: string): Promise<void> {
    let revoking = this.revoking.get(id);
    if (!revoking) {
      revoking = revokeKey(this.admin, id)
        .then(() => void this.live.delete(id))
        .finally(() => this.revoking.delete(id));
      this.revoking.set(id, revoking);
    }
    return revoking;
  }

  /** Revokes every key still live; returns one message per key that could not be revoked. */
  async revokeAll(): Promise<string[]> {
    this.closed = true;
    await Promise.allSettled([...this.creating]);
    const problems: string[] = [];
    for (const id of [...this.live]) {
      await this.revoke(id).catch((error: unknown) => {
        problems.push(
          `Could not revoke the throwaway key ${id}: ${errorMessage(error)}; run \`npm run admin -- keys revoke ${id}\` (with the same --stage).`,
        );
      });
    }
    return problems;
  }
}

/**
 * A new key works once API Gateway has its usage-plan key; until then it is refused with 401.
 * Requests refused there never reach the service's limiter, so polling costs none of its budget.
 */
export async function firstAccepted(
  send: () => Promise<Answer>,
  sleep: (ms: number) => Promise<void> = realSleep,
): Promise<Answer> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const answer = await send();
    if (answer.status !== 401) return answer;
    await sleep(2_000);
  }
  fail('a new key was still refused with 401 after a minute');
}
