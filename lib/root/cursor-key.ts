// Where a deployed v2 listing gets its cursors' HMAC key: the stage's secret, named by ARN in the
// function's environment and read at run time (lib/root/secrets.ts). The local stack, the bench and
// the tests give the key in the wiring instead.
import { optionalEnv } from '../commons/env';
import { CURSOR_KEY_SECRET_ENV } from '../contract/sync';
import type { SecretReader } from './secrets';

/**
 * The key of the secret the environment names, read through `read`; undefined when it names none (a
 * function imported outside Lambda, as the bench does), so only the v2 listing's requests fail.
 */
export async function cursorKeyFromEnv(
  read: SecretReader,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Uint8Array | undefined> {
  const secretId = optionalEnv(CURSOR_KEY_SECRET_ENV, env);
  return secretId === undefined ? undefined : Buffer.from(await read(secretId), 'utf8');
}
