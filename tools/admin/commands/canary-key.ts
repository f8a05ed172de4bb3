// `canary-key create`: a stage's release canary key, the real key the authorizer's pre-traffic hook
// authorizes before a release moves any traffic (docs/operations.md#the-release-canary-key). The
// key goes from here into the stage's secret (the stack output ReleaseCanaryKeySecretArn) and is
// never printed. It gets no API Gateway key: the API refuses it, so it is no client's, counts in no
// usage plan or limiter, and `keys list` and `keys usage` leave it out (its record says
// releaseCanary). A new key replaces the previous one, which is revoked once the new one is stored.
import { CANARY_KEY_COMMAND, CANARY_KEY_SECRET_OUTPUT } from '../../../lib/contract/deployment';
import { isWellFormedApiKey } from '../../../lib/core/access/key-format';
import { authenticate, createApiKey } from '../../../lib/stores/key-service';
import { AdminFailure, errorMessage, UsageError } from '../../shared/errors';
import { defineCommand, type CommandContext } from '../command';
import type { AdminTarget, CanaryKeySecret } from '../target';
import { revokeEverywhere } from './keys';

/** The secret the target's stack names; a stage whose stack has none, or the local stack, cannot have one. */
function secretOf(target: AdminTarget): CanaryKeySecret {
  if (target.canaryKeySecret) return target.canaryKeySecret;
  if (!target.gateway) {
    throw new UsageError(`${CANARY_KEY_COMMAND} needs --stage: only a deployed stage has release hooks`);
  }
  throw new AdminFailure(
    `The stack of ${target.label} has no output ${CANARY_KEY_SECRET_OUTPUT}: deploy the current version first ` +
      '(its first deploy needs no canary key: a new alias has no traffic to shift, so no hook runs).',
  );
}

/** The id of the live key the secret holds, or undefined (the stack's placeholder, or a key revoked or unknown). */
async function heldKeyId(target: AdminTarget, secret: CanaryKeySecret): Promise<string | undefined> {
  const held = (await secret.read()).trim();
  return isWellFormedApiKey(held) ? (await authenticate(target.keys, held))?.keyId : undefined;
}

async function createCanaryKey(args: { ifMissing: boolean }, { target, out, clock }: CommandContext): Promise<void> {
  const secret = secretOf(target);
  const held = await heldKeyId(target, secret);
  if (args.ifMissing && held !== undefined) {
    out.out(`The release canary key of ${target.label} is stored and live (${held}): nothing to do.`);
    return;
  }
  // AWS's time, checked (docs/design.md#a-tools-clock): createdAt, and the revocation marks' days.
  const now = new Date(await clock.checkedNow());
  const { key, record } = await createApiKey(
    target.keys,
    { plan: 'free', scope: 'read', name: 'release-canary', releaseCanary: true },
    { now },
  );
  try {
    await secret.store(key);
  } catch (error) {
    await target.keys.revoke(record.id, now).catch(() => undefined);
    throw new AdminFailure(
      `Could not store the new canary key in ${secret.arn}: ${errorMessage(error)}. ` +
        `The new key ${record.id} is revoked; the secret holds what it held. Run the command again.`,
    );
  }
  // The key the secret held, and any canary key a run stopped before this point left live.
  const previous = new Set(
    (await target.keys.list()).filter((r) => r.releaseCanary && !r.revokedAt && r.id !== record.id).map((r) => r.id),
  );
  if (held !== undefined && held !== record.id) previous.add(held);
  for (const id of previous) {
    try {
      await revokeEverywhere(target, id, now);
    } catch (error) {
      throw new AdminFailure(
        `The new canary key ${record.id} is stored in ${secret.arn}, but revoking the previous ${id} failed ` +
          `(${errorMessage(error)}): revoke it with \`keys revoke ${id}\`.`,
      );
    }
  }
  const revoked = previous.size === 0 ? '' : `; revoked the previous ${[...previous].join(', ')}`;
  out.out(`Stored the new release canary key ${record.id} of ${target.label} in ${secret.arn}${revoked}.`);
}

export const canaryKeyCreate = defineCommand({
  name: CANARY_KEY_COMMAND,
  options: { 'if-missing': { type: 'boolean' } },
  arguments: [],
  help: [
    "--stage only. Creates the stage's release canary key (free plan, read scope, no API Gateway key)",
    "and stores it in the stage's secret (stack output ReleaseCanaryKeySecretArn), never printing it;",
    "then revokes the previous one. The authorizer's pre-traffic hook authorizes it, and the deploy",
    'refuses a stage whose stack exists without it. --if-missing does nothing when the secret holds a',
    'live key (the pipeline runs it after each deploy).',
  ],
  parse: ({ values }) => ({ ifMissing: values['if-missing'] ?? false }),
  run: createCanaryKey,
});
