// The deployed v2 listing's keyring (lib/root/cursor-key.ts) over a reader that answers as told: what
// it keeps, when it reads again, and what a failure does to the keys it holds. The reads against
// Secrets Manager itself (moto_server), rotation and timeout included, are in
// test/integration/secrets.test.ts; the same over HTTP in test/http/v2-cursor-keys.spec.ts.
import { CURSOR_KEY_RENEW_MS } from '../../lib/contract/sync';
import { SECRET_STAGES } from '../../lib/contract/secrets';
import { CursorKeyUnavailableError, cursorKeyring } from '../../lib/root/cursor-key';
import type { SecretReader } from '../../lib/root/secrets';

const notFound = () => Object.assign(new Error('no such version'), { name: 'ResourceNotFoundException' });
const utf8 = (value: string) => Buffer.from(value, 'utf8');

/** A secret's stages as a reader sees them; `failing` makes every read fail with it. */
function fakeSecret(stages: Record<string, string>) {
  const state = { stages, failing: undefined as Error | undefined, reads: 0 };
  const read: SecretReader = (_id, { stage = SECRET_STAGES.current } = {}) => {
    state.reads++;
    if (state.failing) return Promise.reject(state.failing);
    const value = state.stages[stage];
    return value === undefined ? Promise.reject(notFound()) : Promise.resolve(value);
  };
  return { state, read };
}

const clock = { now: 0 };
const timers = { now: () => clock.now, after: () => () => undefined };
beforeEach(() => (clock.now = 0));

test('a renewal keeps what it read; one that fails keeps the keys held before it, and is a 503 itself', async () => {
  const { state, read } = fakeSecret({ AWSCURRENT: 'one' });
  const keys = cursorKeyring({ read, secretId: 's', timers });
  await expect(keys.held()).resolves.toEqual({ current: utf8('one') });
  clock.now += CURSOR_KEY_RENEW_MS;
  state.failing = new Error('Secrets Manager is down');
  await expect(keys.renewed()).rejects.toBeInstanceOf(CursorKeyUnavailableError);
  await expect(keys.held()).resolves.toEqual({ current: utf8('one') });
  state.failing = undefined;
  state.stages = { AWSCURRENT: 'two', AWSPREVIOUS: 'one' };
  clock.now += CURSOR_KEY_RENEW_MS;
  await expect(keys.renewed()).resolves.toEqual({ current: utf8('two'), previous: utf8('one') });
  await expect(keys.held()).resolves.toEqual({ current: utf8('two'), previous: utf8('one') });
});

test('renewals are spaced by CURSOR_KEY_RENEW_MS from the last read, a failed one included', async () => {
  const { state, read } = fakeSecret({ AWSCURRENT: 'one' });
  const keys = cursorKeyring({ read, secretId: 's', timers });
  await keys.held();
  const reads = state.reads;
  clock.now += CURSOR_KEY_RENEW_MS - 1;
  await expect(keys.renewed()).resolves.toBeUndefined();
  expect(state.reads).toBe(reads);
  clock.now += 1;
  state.failing = new Error('throttled');
  await expect(keys.renewed()).rejects.toThrow(/throttled/);
  await expect(keys.renewed()).resolves.toBeUndefined();
  expect(state.reads).toBe(reads + 2);
});

test('a previous version that cannot be read for any reason but its absence fails the read, rather than dropping the key', async () => {
  const { read } = fakeSecret({ AWSCURRENT: 'two', AWSPREVIOUS: 'one' });
  const denied = Object.assign(new Error('not allowed'), { name: 'AccessDeniedException' });
  const keys = cursorKeyring({
    read: (id, options) => (options?.stage === SECRET_STAGES.previous ? Promise.reject(denied) : read(id, options)),
    secretId: 's',
    timers,
  });
  await expect(keys.held()).rejects.toThrow(/AccessDeniedException: not allowed/);
});
