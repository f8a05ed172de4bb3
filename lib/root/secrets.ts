// Secrets a deployed function reads at run time (the v2 cursor key; the authorizer hook's canary
// key): its environment carries only the secret's ARN, since a value resolved into a function's
// environment by a CloudFormation dynamic reference shows in the function's configuration to anyone
// who may read it. Every read is bounded: a Secrets Manager that does not answer is given up on.
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { SECRET_READ_TIMEOUT_MS } from '../contract/secrets';

/**
 * Reads the string value of a secret, by ARN or name: the version of `stage` (AWSCURRENT when
 * absent). A caller with a deadline of its own (the release hook) also gives an abort signal.
 */
export type SecretReader = (
  secretId: string,
  options?: { stage?: string; abortSignal?: AbortSignal },
) => Promise<string>;

/** Secrets Manager gave no answer in time; the read was aborted. */
export class SecretReadTimeoutError extends Error {
  override readonly name = 'SecretReadTimeoutError';
  constructor(secretId: string, timeoutMs: number) {
    super(`Secrets Manager did not answer a read of ${secretId} within ${timeoutMs} ms`);
  }
}

export interface SecretReaderOptions {
  /** How long one read may take (SECRET_READ_TIMEOUT_MS unless a test declares another). */
  timeoutMs?: number;
  /** The timer that gives up on it: the real one unless a test runs on a virtual clock. */
  timers?: Timers;
}

/**
 * Reads through Secrets Manager (AWS's default credentials and Region, or the given client). Each
 * read is aborted after `timeoutMs`, the SDK's retries included, and fails with SecretReadTimeoutError.
 */
export function secretsManagerReader(
  client: SecretsManagerClient = new SecretsManagerClient({}),
  { timeoutMs = SECRET_READ_TIMEOUT_MS, timers = REAL_TIMERS }: SecretReaderOptions = {},
): SecretReader {
  return async (secretId, { stage, abortSignal } = {}) => {
    const abort = new AbortController();
    const cancel = timers.after(timeoutMs, () => abort.abort());
    try {
      const { SecretString } = await client.send(
        new GetSecretValueCommand({ SecretId: secretId, ...(stage !== undefined ? { VersionStage: stage } : {}) }),
        { abortSignal: abortSignal ? AbortSignal.any([abort.signal, abortSignal]) : abort.signal },
      );
      if (SecretString === undefined || SecretString === '') throw new Error(`The secret ${secretId} holds no string`);
      return SecretString;
    } catch (error) {
      if (abort.signal.aborted) throw new SecretReadTimeoutError(secretId, timeoutMs);
      throw error;
    } finally {
      cancel();
    }
  };
}
