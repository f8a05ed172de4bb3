import { createApiKey, type CreatedKey, type NewKeyRequest } from '../../../lib/stores/key-service';
import type { ApiKeyRecord } from '../../../lib/stores/api-keys';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../../lib/contract/auth';
import { KEY_ID_PATTERN, KEY_PREFIX } from '../../../lib/core/access/key-format';
import {
  isPlanName,
  limitsFor,
  MAX_CUSTOM_LIMITS,
  PLAN_LIMITS,
  PLAN_NAMES,
  type Limits,
  type PlanName,
} from '../../../lib/contract/plans';
import { usageAt } from '../../../lib/stores/rate-limiter';
import { isKeyScope, KEY_SCOPES, SCOPE_METHODS, type KeyScope } from '../../../lib/contract/scopes';
import { defineCommand, type CommandContext } from '../command';
import { AdminFailure, errorMessage, UsageError } from '../../shared/errors';
import { columns } from '../../shared/output';
import type { AdminTarget } from '../target';

interface CreateArgs {
  plan: PlanName;
  name?: string;
  limits?: Limits;
  scope?: KeyScope;
  json: boolean;
}

const NAME_MAX_LENGTH = 100;

/** A limit given on the command line: a plain positive integer within the accepted maximum. */
function limitOption(text: string | undefined, option: string, max: number): number {
  const value = text !== undefined && /^[1-9][0-9]*$/.test(text) ? Number(text) : NaN;
  if (!(value <= max)) throw new UsageError(`--${option} must be a whole number from 1 to ${max}`);
  return value;
}

function createArgs(values: {
  plan?: string;
  name?: string;
  rpm?: string;
  rpd?: string;
  scope?: string;
  json?: boolean;
}): CreateArgs {
  const { plan, name, rpm, rpd, scope } = values;
  if (plan === undefined) throw new UsageError(`keys create needs --plan (${PLAN_NAMES.join(', ')})`);
  if (!isPlanName(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}`);
  const args: CreateArgs = { plan, json: values.json ?? false };
  if (scope !== undefined) {
    if (!isKeyScope(scope)) throw new UsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
    args.scope = scope;
  }
  if (name !== undefined) {
    // The name is shown in listings; control characters would garble a terminal.
    if (name.trim() === '' || name.length > NAME_MAX_LENGTH || /\p{Cc}/u.test(name)) {
      throw new UsageError(`--name must be 1 to ${NAME_MAX_LENGTH} printable characters`);
    }
    args.name = name;
  }
  if (plan !== 'enterprise') {
    if (rpm !== undefined || rpd !== undefined) {
      throw new UsageError(`--rpm and --rpd are only for enterprise keys; the ${plan} plan has fixed limits`);
    }
    return args;
  }
  if (rpm === undefined || rpd === undefined) {
    throw new UsageError('An enterprise key needs both --rpm (requests per minute) and --rpd (requests per day)');
  }
  const limits = {
    perMinute: limitOption(rpm, 'rpm', MAX_CUSTOM_LIMITS.perMinute),
    perDay: limitOption(rpd, 'rpd', MAX_CUSTOM_LIMITS.perDay),
  };
  // A daily limit under the per-minute one is almost certainly the two swapped.
  if (limits.perDay < limits.perMinute) throw new UsageError('--rpd (per day) must be at least --rpm (per minute)');
  args.limits = limits;
  return args;
}

/** A key id argument; shared with every command that names a key. */
export function keyIdArgument(text: string): string {
  if (text.startsWith(KEY_PREFIX)) {
    // Never echoed: it may be a real key, and terminals and CI logs keep what is printed.
    throw new UsageError('That looks like an API key, not a key id: pass the id (key_...) that `keys list` shows');
  }
  if (!KEY_ID_PATTERN.test(text)) {
    throw new UsageError('A key id is key_ followed by 20 hexadecimal digits, as `keys list` shows');
  }
  return text;
}

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

/** A scope as the text output shows it: what it may call. */
function scopeText(scope: KeyScope): string {
  const methods = SCOPE_METHODS[scope];
  return methods === undefined ? scope : `${scope} (${methods.join(', ')} only)`;
}

/** What may be shown of a key record: everything but its hash. */
function publicView(record: ApiKeyRecord): Record<string, unknown> {
  return {
    id: record.id,
    plan: record.plan,
    scope: record.scope,
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
    const cleanup = [
      target.keys.revoke(record.id, now),
      ...(gatewayKeyId ? [gateway.remove(gatewayKeyId, record.plan)] : []),
    ];
    const cleaned = (await Promise.allSettled(cleanup)).every((result) => result.status === 'fulfilled');
    throw new AdminFailure(
      `Could not set up the API Gateway key for ${record.id}: ${errorMessage(error)}. ` +
        (cleaned
          ? 'The new key was revoked and is not shown; run the command again.'
          : `Cleaning up failed too: revoke ${record.id} with \`keys revoke\`.`),
    );
  }
}

/** A new key, with its API Gateway key on a stage; the smoke command's throwaway keys are made so too. */
export async function newKey(target: AdminTarget, request: NewKeyRequest, now: Date): Promise<CreatedKey> {
  const created = await createApiKey(target.keys, request, { now });
  await attachGatewayKey(target, created.record, now);
  return created;
}

async function createKey(command: CreateArgs, { target, out, clock }: CommandContext): Promise<void> {
  const { key, record } = await newKey(target, command, new Date(await clock.checkedNow()));
  if (command.json) {
    out.out(JSON.stringify({ key, ...publicView(record) }));
    return;
  }
  out.out(
    `Created ${record.plan} key ${record.id}${record.name !== undefined ? ` (${record.name})` : ''} in ${target.label}`,
  );
  out.out(`  limits:  ${limitsText(limitsOf(record))}`);
  out.out(`  scope:   ${scopeText(record.scope)}`);
  out.out(`  created: ${record.createdAt}`);
  if (record.gatewayKeyId) out.out(`  API Gateway key: ${record.gatewayKeyId}, in the ${record.plan} usage plan`);
  out.out('');
  out.out('The key, shown this once (only its hash is stored; keep it somewhere safe):');
  out.out(`  ${key}`);
}

/** A stage's release canary key is the release hook's alone: listings and usage leave it out. */
const RELEASE_CANARY_NOTE = 'docs/operations.md#the-release-canary-key';

async function listKeys(json: boolean, { target, out }: CommandContext): Promise<void> {
  const records = (await target.keys.list()).filter((record) => !record.releaseCanary);
  if (json) {
    out.out(JSON.stringify(records.map(publicView)));
    return;
  }
  if (records.length === 0) {
    out.out(`No API keys in ${target.label}.`);
    return;
  }
  const withGateway = target.gateway !== undefined;
  const header = [
    'ID',
    'PLAN',
    'SCOPE',
    'LIMITS',
    'CREATED',
    'REVOKED',
    ...(withGateway ? ['GATEWAY KEY'] : []),
    'NAME',
  ];
  const rows = records.map((r) => [
    r.id,
    r.plan,
    r.scope,
    limitsText(limitsOf(r)),
    r.createdAt,
    r.revokedAt ?? '-',
    ...(withGateway ? [r.gatewayKeyId ?? '-'] : []),
    r.name ?? '',
  ]);
  for (const line of columns(header, rows)) out.out(line);
}

/** Deletes a revoked key's gateway key, then forgets it; the record keeps it until then, so a retry finds it. */
async function deleteGatewayKey(target: AdminTarget, record: ApiKeyRecord): Promise<string | undefined> {
  const { gatewayKeyId } = record;
  if (!target.gateway || gatewayKeyId === undefined) return undefined;
  await target.gateway.remove(gatewayKeyId, record.plan);
  await target.keys.clearGatewayKeyId(record.id, gatewayKeyId);
  return gatewayKeyId;
}

/**
 * The record first (the authorizer refuses the key from its next lookup), then the marks on the
 * key's limiter items (the service refuses it at once, whatever API Gateway's authorizer cache
 * holds), then the gateway key. Revoking again redoes the marks, so a run stopped halfway is
 * finished by the next. The marks' days are AWS's (a machine's clock hours off marked other days):
 * `now` is the checked clock's. The gateway key's id, when one was deleted.
 */
export async function revokeEverywhere(target: AdminTarget, id: string, now: Date) {
  const revoked = await target.keys.revoke(id, now);
  if (!revoked) throw new AdminFailure(`No API key with id ${id} in ${target.label}`);
  await target.limiter.markRevoked(id, now.getTime(), AUTHORIZER_CACHE_TTL_SECONDS);
  // Also for a key revoked already: an earlier run may have stopped halfway, or (before 1.x) only
  // disabled the gateway key, which still counted against the account's quota.
  return { ...revoked, deleted: await deleteGatewayKey(target, revoked.record) };
}

async function revokeKey(id: string, { target, out, clock }: CommandContext): Promise<void> {
  const { record, alreadyRevoked, deleted } = await revokeEverywhere(target, id, new Date(await clock.checkedNow()));
  const gatewayNote = deleted ? ` Its API Gateway key ${deleted} is deleted, with its usage-plan binding.` : '';
  out.out(
    alreadyRevoked
      ? `${id} was already revoked at ${record.revokedAt}.${gatewayNote}`
      : `Revoked ${id} (${record.plan}${record.name !== undefined ? `, ${record.name}` : ''}).${gatewayNote} ` +
          'Its next request is refused with 401.',
  );
}

async function pruneGatewayKeys(_args: undefined, { target, out }: CommandContext): Promise<void> {
  if (!target.gateway) {
    throw new UsageError('The local stack has no API Gateway keys: keys prune-gateway needs --stage');
  }
  const revoked = (await target.keys.list()).filter((r) => r.revokedAt !== undefined && r.gatewayKeyId !== undefined);
  for (const record of revoked) await deleteGatewayKey(target, record);
  out.out(
    revoked.length === 0
      ? `No revoked key in ${target.label} has an API Gateway key left.`
      : `Deleted the API Gateway keys of ${revoked.length} revoked key${revoked.length === 1 ? '' : 's'} in ${target.label}.`,
  );
}

/**
 * Puts every live key's API Gateway key in its tier's usage plan, as the stage's stack names them:
 * after a new stack took the retained tables back, its usage plans are new and hold no key.
 */
async function rebindGatewayKeys(_args: undefined, { target, out }: CommandContext): Promise<void> {
  if (!target.gateway) throw new UsageError('The local stack has no usage plans: keys rebind needs --stage');
  const live = (await target.keys.list()).filter((r) => r.revokedAt === undefined && r.gatewayKeyId !== undefined);
  let bound = 0;
  for (const record of live) if (await target.gateway.bind(record.gatewayKeyId ?? '', record.plan)) bound++;
  out.out(
    `${bound} of the ${live.length} live keys with an API Gateway key in ${target.label} were put in their usage plans; ` +
      `${live.length - bound} were in them already.`,
  );
}

const isoTime = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** A key's plan and limits, and what it has used of them now, from its limiter item. */
async function keyUsage(args: { id: string; json: boolean }, { target, out, clock }: CommandContext): Promise<void> {
  const record = await target.keys.get(args.id);
  if (!record) throw new AdminFailure(`No API key with id ${args.id} in ${target.label}`);
  if (record.releaseCanary) {
    throw new AdminFailure(
      `${args.id} is the release canary key of ${target.label}: it has no API Gateway key, so the API refuses it ` +
        `and nothing counts its use; only the release hook calls the authorizer with it (${RELEASE_CANARY_NOTE}).`,
    );
  }
  const limits = limitsOf(record);
  if (!limits) throw new AdminFailure(`${args.id} is an enterprise key without readable custom limits`);
  const now = new Date(await clock.checkedNow());
  const usage = usageAt(await target.limiter.read(record.id, now.getTime()), limits, now.getTime());
  if (args.json) {
    // bannedUntil is always there, null without a ban, so a script can read it without a guard.
    out.out(
      JSON.stringify({
        id: record.id,
        plan: record.plan,
        scope: record.scope,
        limits,
        ...usage,
        bannedUntil: usage.bannedUntil ?? null,
      }),
    );
    return;
  }
  const { minute, day } = usage;
  out.out(
    `${record.id} (${record.plan}${record.name !== undefined ? `, ${record.name}` : ''}) in ${target.label}, at ${now.toISOString()}`,
  );
  out.out(`  limits:      ${limitsText(limits)}`);
  out.out(`  scope:       ${scopeText(record.scope)}`);
  out.out(
    `  this minute: ${minute.used} used, ${minute.remaining} remaining, ${minute.refused} refused; resets ${isoTime(minute.resetAt)}`,
  );
  out.out(`  today (UTC): ${day.used} used, ${day.remaining} remaining; resets ${isoTime(day.resetAt)}`);
  out.out(
    usage.bannedUntil === undefined
      ? '  ban:         none'
      : `  ban:         banned until ${isoTime(usage.bannedUntil)}`,
  );
  if (record.revokedAt !== undefined) out.out(`  revoked:     ${record.revokedAt}`);
}

const fixedPlans = Object.entries(PLAN_LIMITS).map(
  ([plan, { perMinute, perDay }]) => `  ${plan.padEnd(10)} ${perMinute}/min, ${perDay}/day`,
);

export const keysCreate = defineCommand({
  name: 'keys create',
  options: {
    plan: { type: 'string', value: PLAN_NAMES.join('|'), required: true },
    name: { type: 'string', value: 'NAME' },
    rpm: { type: 'string', value: 'N' },
    rpd: { type: 'string', value: 'N' },
    scope: { type: 'string', value: KEY_SCOPES.join('|') },
    json: { type: 'boolean' },
  },
  arguments: [],
  help: [
    'Creates a key and prints it once; only its hash is stored, so it cannot be shown again.',
    '--scope read makes a read-only key: it may call every GET and nothing else (a DELETE',
    'answers 403 INSUFFICIENT_SCOPE). Without --scope a key has full access.',
    'The fixed plans:',
    ...fixedPlans,
    `enterprise needs its own --rpm (requests per minute, 1-${MAX_CUSTOM_LIMITS.perMinute}) and --rpd`,
    `(per day, 1-${MAX_CUSTOM_LIMITS.perDay}); the other plans refuse them.`,
    '--json prints one JSON object: key, id, plan, scope, name (when given), limits, createdAt.',
  ],
  parse: ({ values }) => createArgs(values),
  run: createKey,
});

export const keysList = defineCommand({
  name: 'keys list',
  options: { json: { type: 'boolean' } },
  arguments: [],
  help: [
    "Every key: id, plan, scope, name, limits, created, revoked. Never a key or its hash. A stage's",
    "release canary key (`canary-key create`) is not listed: it is no client's.",
  ],
  parse: ({ values }) => values.json ?? false,
  run: listKeys,
});

export const keysRevoke = defineCommand({
  name: 'keys revoke',
  options: {},
  arguments: ['<key-id>'],
  help: [
    'Revokes a key by its id (key_..., as `keys list` shows). Its next request is refused with',
    `401, though API Gateway may cache its authorization for ${AUTHORIZER_CACHE_TTL_SECONDS} s: the service's limiter refuses it.`,
    'On a stage its API Gateway key is deleted (API Gateway allows 10,000 keys per account and',
    'Region). A revoke that failed halfway is finished by revoking again.',
  ],
  parse: ({ args: [id = ''] }) => keyIdArgument(id),
  run: revokeKey,
});

export const keysPruneGateway = defineCommand({
  name: 'keys prune-gateway',
  options: {},
  arguments: [],
  help: [
    'Deletes the API Gateway keys that revoked keys still have (revoking only disabled them',
    'before), so they stop counting against the quota of 10,000 per account and Region. --stage only.',
  ],
  parse: () => undefined,
  run: pruneGatewayKeys,
});

export const keysRebind = defineCommand({
  name: 'keys rebind',
  options: {},
  arguments: [],
  help: [
    "Puts every live key's API Gateway key in its tier's usage plan, where it was not already: after",
    'a new stack took the retained tables back (docs/operations.md), its usage plans hold no key. --stage only.',
  ],
  parse: () => undefined,
  run: rebindGatewayKeys,
});

export const keysUsage = defineCommand({
  name: 'keys usage',
  options: { json: { type: 'boolean' } },
  arguments: ['<key-id>'],
  help: [
    "A key's plan, scope and limits, and its use now: this minute's and today's counts and what remains,",
    "the requests refused this minute, and any ban with its end. Read from the service's own",
    'rate-limit item (one per key and UTC day); nothing is changed.',
    '--json prints one JSON object: id, plan, scope, limits, minute, day, bannedUntil (Unix seconds, or null).',
  ],
  parse: ({ values, args: [id = ''] }) => ({ id: keyIdArgument(id), json: values.json ?? false }),
  run: keyUsage,
});
