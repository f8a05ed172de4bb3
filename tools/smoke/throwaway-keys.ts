// Throwaway keys for the smoke suite, made and revoked through the admin command's own commands,
// so a deployed stage's keys get their API Gateway side exactly as an operator's would.
import type { Limits } from '../../lib/limits/plans';
import { keysCreate, keysRevoke } from '../admin/commands/keys';
import type { Output } from '../shared/output';
import type { AdminTarget } from '../admin/target';
import { CheckFailed, type Answer } from './http';

const quiet: Output = { out: () => undefined, err: () => undefined };
const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A new enterprise key with these limits, via `keys create --json`. */
export async function createThrowawayKey(admin: AdminTarget, limits: Limits): Promise<{ key: string; id: string }> {
  const lines: string[] = [];
  const values = {
    plan: 'enterprise',
    name: 'smoke test (throwaway)',
    rpm: String(limits.perMinute),
    rpd: String(limits.perDay),
    json: true,
  };
  await keysCreate.prepare({ values, args: [] })({
    target: admin,
    out: { out: (l) => lines.push(l), err: () => undefined },
    now: new Date(),
  });
  const created = JSON.parse(lines.join('\n')) as { key?: unknown; id?: unknown };
  if (typeof created.key !== 'string' || typeof created.id !== 'string') throw new Error('keys create printed no key');
  return { key: created.key, id: created.id };
}

export async function revokeKey(admin: AdminTarget, id: string): Promise<void> {
  await keysRevoke.prepare({ values: {}, args: [id] })({ target: admin, out: quiet, now: new Date() });
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
  throw new CheckFailed('a new key was still refused with 401 after a minute');
}
