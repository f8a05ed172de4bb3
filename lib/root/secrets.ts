// Secrets a deployed function reads at run time (the v2 cursor key; the authorizer hook's canary
// key): its environment carries only the secret's ARN, since a value resolved into a function's
// environment by a CloudFormation dynamic reference shows in the function's configuration to anyone
// who may read it. Each is read once per container and kept.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';

/**
 * Reads the string value of a secret, by ARN or name. A caller with a deadline (the release hook)
 * gives an abort signal: the request is dropped when it aborts.
 */
export type SecretReader = (secretId: string, options?: { abortSignal?: AbortSignal }) => Promise<string>;

/** Reads through Secrets Manager (AWS's default credentials and Region, or the given client). */
export function secretsManagerReader(client: SecretsManagerClient = new SecretsManagerClient({})): SecretReader {
  return async (secretId, options = {}) => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: secretId }), options);
    if (SecretString === undefined || SecretString === '') throw new Error(`The secret ${secretId} holds no string`);
    return SecretString;
  };
}

/**
 * `read`, once per secret: later calls share the first read's answer. A failed read is not kept,
 * so the next call (the next invocation, or Lambda's next init) reads again.
 */
export function cachedSecrets(read: SecretReader): SecretReader {
  const held = new Map<string, Promise<string>>();
  return (secretId) => {
    const kept = held.get(secretId);
    if (kept) return kept;
    const reading = read(secretId);
    held.set(secretId, reading);
    reading.catch(() => held.delete(secretId));
    return reading;
  };
}
