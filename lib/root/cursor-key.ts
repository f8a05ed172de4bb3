// Where a deployed v2 listing gets its cursors' HMAC keys: the stage's secret, named by ARN in the
// function's environment and read at run time (lib/root/secrets.ts), both its current version and,
// after a rotation, the previous one. The local stack, the bench and the tests give one key in the
// wiring instead.
import { optionalEnv } from '../commons/env';
import { logger } from '../commons/logger';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { CodedError } from '../contract/errors';
import { SECRET_STAGES } from '../contract/secrets';
import { CURSOR_KEY_RENEW_MS, CURSOR_KEY_SECRET_ENV } from '../contract/sync';
import type { CursorKeys, CursorKeySource } from '../core/sync/cursor';
import { secretsManagerReader, type SecretReader } from './secrets';

/** The keys could not be read (Secrets Manager failed, refused or did not answer in time): 503. */
export class CursorKeyUnavailableError extends CodedError {
  override readonly name = 'CursorKeyUnavailableError';
  constructor(secretId: string, cause: unknown) {
    const why = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
    super('SERVICE_UNAVAILABLE', `The v2 cursor key could not be read from its secret ${secretId} (${why})`);
  }
}

/** A stage a secret has no version under (AWSPREVIOUS before the first rotation). */
const isMissingStage = (error: unknown): boolean =>
  error instanceof Error && error.name === 'ResourceNotFoundException';

const bytes = (value: string): Uint8Array => Buffer.from(value, 'utf8');

export interface CursorKeyringOptions {
  read: SecretReader;
  secretId: string;
  /** The clock the renewals are spaced by: the real one unless a test runs on a virtual clock. */
  timers?: Timers;
}

/**
 * The keys of `secretId`: its AWSCURRENT version seals, its AWSPREVIOUS one (after a rotation) still
 * opens. Read on first use and kept; read again when a cursor is sealed with neither (at most once
 * per CURSOR_KEY_RENEW_MS), keeping what it held if that read fails. A failed read is
 * CursorKeyUnavailableError, and nothing is kept: the next request reads again.
 */
export function cursorKeyring({ read, secretId, timers = REAL_TIMERS }: CursorKeyringOptions): CursorKeySource {
  let held: Promise<CursorKeys> | undefined;
  let lastRead = Number.NEGATIVE_INFINITY;
  const readKeys = async (): Promise<CursorKeys> => {
    lastRead = timers.now();
    try {
      const [current, previous] = await Promise.all([
        read(secretId, { stage: SECRET_STAGES.current }),
        read(secretId, { stage: SECRET_STAGES.previous }).catch((error: unknown) => {
          if (isMissingStage(error)) return undefined;
          throw error;
        }),
      ]);
      return { current: bytes(current), ...(previous !== undefined ? { previous: bytes(previous) } : {}) };
    } catch (error) {
      throw new CursorKeyUnavailableError(secretId, error);
    }
  };
  return {
    held() {
      if (held) return held;
      const reading = readKeys();
      held = reading;
      reading.catch(() => {
        if (held === reading) held = undefined;
      });
      return reading;
    },
    async renewed() {
      if (timers.now() - lastRead < CURSOR_KEY_RENEW_MS) return undefined;
      const keys = await readKeys();
      held = Promise.resolve(keys);
      return keys;
    },
  };
}

/** One key given, never rotated (the local stack, the bench, the tests): nothing to read again. */
export function fixedCursorKey(key: Uint8Array): CursorKeySource {
  const keys = Promise.resolve({ current: key });
  return { held: () => keys, renewed: () => Promise.resolve(undefined) };
}

/**
 * The keys of the secret the environment names, read through `read`; undefined when it names none (a
 * function imported outside Lambda, as the bench does), so only the v2 listing's requests fail.
 */
export function cursorKeysFromEnv(
  read: SecretReader,
  env: NodeJS.ProcessEnv = process.env,
  timers?: Timers,
): CursorKeySource | undefined {
  const secretId = optionalEnv(CURSOR_KEY_SECRET_ENV, env);
  return secretId === undefined ? undefined : cursorKeyring({ read, secretId, ...(timers ? { timers } : {}) });
}

/**
 * A deployed v2 listing's keys, read while its container initialises (top-level await, bounded by
 * the read's timeout), so the first page does not wait for them. A failed read is logged, not
 * thrown: the init succeeds, and each request reads again until a read succeeds, answering 503
 * while none does.
 */
export async function cursorKeysReadAtInit(): Promise<CursorKeySource | undefined> {
  const keys = cursorKeysFromEnv(secretsManagerReader());
  await keys?.held().catch((error: unknown) => logger.error('v2 cursor key unread at init', error as Error));
  return keys;
}
