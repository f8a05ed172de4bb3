import { timingSafeEqual } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyIdFromHash } from './format';
import type { ApiKeyRecord, ApiKeysRepository } from './repository';
import { limitsFor, type Limits, type PlanName } from '../limits/plans';

export interface NewKeyRequest {
  plan: PlanName;
  name?: string;
  /** Required for enterprise keys, refused for the others. */
  limits?: Limits;
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
    createdAt: (options.now ?? new Date()).toISOString(),
  };
  if (request.name) record.name = request.name;
  if (request.limits) record.limits = request.limits;
  await repo.put(record);
  return { key, record };
}

/** The identity a valid key carries into the handlers. */
export interface Principal {
  keyId: string;
  plan: PlanName;
  limits: Limits;
  /** The key's hash: the API Gateway usage identifier (API keys are created with this value). */
  usageIdentifier: string;
}

/**
 * The principal of a bearer key, or undefined when the key is malformed (refused without a read),
 * unknown or revoked.
 */
export async function authenticate(repo: ApiKeysRepository, key: string): Promise<Principal | undefined> {
  if (!isWellFormedApiKey(key)) return undefined;
  const hash = hashApiKey(key);
  const record = await repo.get(keyIdFromHash(hash));
  if (!record || record.revokedAt) return undefined;
  if (!timingSafeEqual(Buffer.from(record.hash, 'hex'), Buffer.from(hash, 'hex'))) return undefined;
  return {
    keyId: record.id,
    plan: record.plan,
    limits: limitsFor(record.plan, record.limits),
    usageIdentifier: hash,
  };
}
