// Signing a delivery as the Standard Webhooks specification says
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md): the
// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the secret's bytes (the
// base64 after `whsec_`), base64-encoded, prefixed `v1,`; one such signature per secret, space
// separated, so a receiver holding either secret of a rotation's overlap verifies it. Pure: the
// delivery signs each attempt with its own timestamp; receivers verify with the `standardwebhooks`
// package (the tests verify every signature with it).
import { createHmac, randomBytes } from 'node:crypto';
import {
  WEBHOOK_HEADERS,
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
  WEBHOOK_SIGNATURE_PREFIX,
} from '../../contract/webhooks';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The key bytes of a `whsec_<base64>` secret; an Error for anything else (a stored secret is always one). */
export function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : undefined;
  if (encoded === undefined || !BASE64.test(encoded)) throw new Error('A signing secret is whsec_ and base64');
  return Buffer.from(encoded, 'base64');
}

/** A new secret: `whsec_` and the base64 of WEBHOOK_LIMITS.secretBytes random bytes. */
export function generateSigningSecret(random: (size: number) => Buffer = randomBytes): string {
  return `${WEBHOOK_SECRET_PREFIX}${random(WEBHOOK_LIMITS.secretBytes).toString('base64')}`;
}

/** One secret's signature of one attempt: `v1,<base64 HMAC-SHA256>`. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`, 'utf8');
  return `${WEBHOOK_SIGNATURE_PREFIX}${mac.digest('base64')}`;
}

/**
 * The three headers of one attempt, signed with every secret given (lib/contract/webhooks.ts
 * signingSecrets: the current one, and the previous during a rotation's overlap).
 */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  if (secrets.length === 0) throw new Error('A delivery is signed with at least one secret');
  if (!Number.isSafeInteger(timestampSeconds)) throw new Error('A webhook timestamp is whole Unix seconds');
  return {
    [WEBHOOK_HEADERS.id]: id,
    [WEBHOOK_HEADERS.timestamp]: String(timestampSeconds),
    [WEBHOOK_HEADERS.signature]: secrets.map((secret) => signature(secret, id, timestampSeconds, body)).join(' '),
  };
}
