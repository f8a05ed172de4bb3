import { createApiKey } from '../../../lib/keys/service';
import type { ApiKeyRecord } from '../../../lib/keys/repository';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../../lib/contract/auth';
import { limitsFor, type Limits } from '../../../lib/limits/plans';
import type { Command } from '../args';
import { AdminFailure, errorMessage } from '../errors';
import { columns, type Output } from '../output';
import type { AdminTarget } from '../target';

type CreateCommand = Extract<Command, { kind: 'keys create' }>;

/** A stored record's limits, or undefined for an enterprise record whose custom limits are unreadable. */
function limitsOf(record: ApiKeyRecord): Limits | undefined {
  try {
    return limitsFor(record.plan, record.limits);
  } catch {
    return undefined;
  }
}

function limitsText(limits: Limits | undefined): string {
  return limits ? `${limits.perMinute}/min, ${limits.perDay}/day` : '(missing)';
}

/** What may be shown of a key record: everything but its hash. */
function publicView(record: ApiKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    plan: record.plan,
    ...(record.name !== undefined ? { name: record.name } : {}),
    limits: limitsOf(record),
    createdAt: record.createdAt,
    ...(record.revokedAt !== undefined ? { revokedAt: record.revokedAt } : {}),
    ...(record.gatewayKeyId !== undefined ? { gatewayKeyId: record.gatewayKeyId } : {}),
  };
}

/**
 * In a deployed stage the table record is written first, then the gateway key. If the gateway
 * step fails, the record is revoked and the key never shown, so no half-set-up key is in use.
 */
async function attachGatewayKey(target: AdminTarget, record: ApiKeyRecord, now: Date): Promise<void> {
  const { gateway } = target;
  if (!gateway) return;
  let gatewayKeyId: string | undefined;
  try {
    gatewayKeyId = await gateway.register(record);
    await target.keys.setGatewayKeyId(record.id, gatewayKeyId);
    record.gatewayKeyId = gatewayKeyId;
  } catch (error) {
    const cleanup = [target.keys.revoke(record.id, now), ...(gatewayKeyId ? [gateway.disable(gatewayKeyId)] : [])];
    const cleaned = (await Promise.allSettled(cleanup)).every((result) => result.status === 'fulfilled');
    throw new AdminFailure(
      `Could not set up the API Gateway key for ${record.id}: ${errorMessage(error)}. ` +
        (cleaned
          ? 'The new key was revoked and is not shown; run the command again.'
          : `Cleaning up failed too: revoke ${record.id} with \`keys revoke\`.`),
    );
  }
}

export async function createKey(target: AdminTarget, command: CreateCommand, out: Output, now: Date): Promise<void> {
  const { key, record } = await createApiKey(
    target.keys,
    {
      plan: command.plan,
      ...(command.name !== undefined ? { name: command.name } : {}),
      ...(command.limits ? { limits: command.limits } : {}),
    },
    { now },
  );
  await attachGatewayKey(target, record, now);
  if (command.json) {
    out.out(JSON.stringify({ key, ...publicView(record) }));
    return;
  }
  out.out(`Created ${record.plan} key ${record.id}${record.name !== undefined ? ` (${record.name})` : ''} in ${target.label}`);
  out.out(`  limits:  ${limitsText(limitsOf(record))}`);
  out.out(`  created: ${record.createdAt}`);
  if (record.gatewayKeyId) out.out(`  API Gateway key: ${record.gatewayKeyId}, in the ${record.plan} usage plan`);
  out.out('');
  out.out('The key, shown this once (only its hash is stored; keep it somewhere safe):');
  out.out(`  ${key}`);
}

export async function listKeys(target: AdminTarget, json: boolean, out: Output): Promise<void> {
  const records = await target.keys.list();
  if (json) {
    out.out(JSON.stringify(records.map(publicView)));
    return;
  }
  if (records.length === 0) {
    out.out(`No API keys in ${target.label}.`);
    return;
  }
  const withGateway = target.gateway !== undefined;
  const header = ['ID', 'PLAN', 'LIMITS', 'CREATED', 'REVOKED', ...(withGateway ? ['GATEWAY KEY'] : []), 'NAME'];
  const rows = records.map((r) => [
    r.id,
    r.plan,
    limitsText(limitsOf(r)),
    r.createdAt,
    r.revokedAt ?? '-',
    ...(withGateway ? [r.gatewayKeyId ?? '-'] : []),
    r.name ?? '',
  ]);
  for (const line of columns(header, rows)) out.out(line);
}

export async function revokeKey(target: AdminTarget, id: string, out: Output, now: Date): Promise<void> {
  const record = await target.keys.revoke(id, now);
  if (!record) throw new AdminFailure(`No API key with id ${id} in ${target.label}`);
  const already = record.revokedAt !== undefined && record.revokedAt < now.toISOString();
  // Disabled again even when the record was revoked already: an earlier run may have stopped halfway.
  if (target.gateway) {
    if (record.gatewayKeyId) await target.gateway.disable(record.gatewayKeyId);
    else out.err(`Note: ${id} has no API Gateway key recorded, so there is none to disable.`);
  }
  const gatewayNote = target.gateway && record.gatewayKeyId ? ` Its API Gateway key ${record.gatewayKeyId} is disabled.` : '';
  out.out(
    already
      ? `${id} was already revoked at ${record.revokedAt}.${gatewayNote}`
      : `Revoked ${id} (${record.plan}${record.name !== undefined ? `, ${record.name}` : ''}).${gatewayNote} ` +
          `It stops working within the authorizer cache time (${AUTHORIZER_CACHE_TTL_SECONDS} s).`,
  );
}
