import { timingSafeEqual } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyIdFromHash } from '../core/access/key-format';
import type { Caller } from '../core/access/caller';
import type { ApiKeyRecord, ApiKeysRepository } from './api-keys';
import type { Deadline } from '../commons/deadline';
import { limitsFor, type Limits, type PlanName } from '../contract/plans';
import { DEFAULT_KEY_SCOPE, type KeyScope } from '../contract/scopes';

export interface NewKeyRequest {
  plan: PlanName;
  name?: string;
  /** Required for enterprise keys, refused for the others. */
  limits?: Limits;
  /** Full access unless given. */
  scope?: KeyScope;
  /** A stage's release canary key (ApiKeyRecord.releaseCanary). */
  releaseCanary?: true;
}

export interface CreatedKey {
  /** The plaintext key: shown once, never stored or logged. */
  key: string;
  record: ApiKeyRecord;
}

/** Makes and stores a new key. Only its hash is stored. */
export async function createApiKey(
  repo: ApiKeysRepository,
  request: NewKeyRequest,
  options: { now?: Date; key?: string } = {},
): Promise<CreatedKey> {
  if (request.plan !== 'enterprise' && request.limits) {
    throw new Error('Custom limits are only for enterprise keys; other plans have fixed limits.');
  }
  // Validates enterprise limits (throws when missing or out of range).
  limitsFor(request.plan, request.limits);
  const key = options.key ?? generateApiKey();
  const hash = hashApiKey(key);
  const record: ApiKeyRecord = {
    id: keyIdFromHash(hash),
    hash,
    plan: request.plan,
    scope: request.scope ?? DEFAULT_KEY_SCOPE,
    createdAt: (options.now ?? new Date()).toISOString(),
  };
  if (request.name) record.name = request.name;
  if (request.limits) record.limits = request.limits;
  if (request.releaseCanary) record.releaseCanary = true;
  await repo.put(record);
  return { key, record };
}

/**
 * A valid key's caller, with the key's hash (the API Gateway usage identifier: API keys are created
 * with this value) and its scope, which the authorizer's policy enforces.
 */
export type AuthenticatedKey = Caller & { usageIdentifier: string; scope: KeyScope };

/** Why a key is refused: no bearer token, a malformed key, a key nobody holds, a revoked key. */
export const KEY_REFUSAL_CAUSES = ['missing', 'malformed', 'unknown', 'revoked'] as const;
export type KeyRefusalCause = (typeof KEY_REFUSAL_CAUSES)[number];

export type Authentication = { caller: AuthenticatedKey } | { refused: Exclude<KeyRefusalCause, 'missing'> };

/**
 * The caller of a bearer key, or why it is refused. A malformed key is refused without a read; the
 * read carries `deadline` (the authorizer's).
 */
export async function authenticateKey(
  repo: ApiKeysRepository,
  key: string,
  deadline?: Deadline,
): Promise<Authentication> {
  if (!isWellFormedApiKey(key)) return { refused: 'malformed' };
  const hash = hashApiKey(key);
  const record = await repo.get(keyIdFromHash(hash), deadline);
  if (!record) return { refused: 'unknown' };
  if (!timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) return { refused: 'unknown' };
  if (record.revokedAt) return { refused: 'revoked' };
  return {
    caller: {
      keyId: record.id,
      plan: record.plan,
      limits: limitsFor(record.plan, record.limits),
      usageIdentifier: hash,
      scope: record.scope,
    },
  };
}

/** The caller of a bearer key, or undefined when the key is malformed, unknown or revoked. */
export async function authenticate(repo: ApiKeysRepository, key: string): Promise<AuthenticatedKey | undefined> {
  const outcome = await authenticateKey(repo, key);
  return 'caller' in outcome ? outcome.caller : undefined;
}
