// Black-box: v2 cursors across a rotation of their key, over HTTP on the local stack, with the keys
// read as a deployed function reads them (lib/root/cursor-key.ts) from moto_server's Secrets
// Manager. Two apps on the same tables stand for two containers: one started before the rotation,
// one after. And a key that cannot be read answers 503 with an Error body.
import { CreateSecretCommand, PutSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { AddressInfo } from 'node:net';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { V2_BASE_PATH } from '../../lib/contract/routes';
import { CURSOR_KEY_RENEW_MS } from '../../lib/contract/sync';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../lib/contract/errors';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { cursorKeyring } from '../../lib/root/cursor-key';
import { secretsManagerReader } from '../../lib/root/secrets';
import { createLocalApp } from '../../tools/local/app';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';
import { describeWithMoto, startMoto, type Moto } from '../support/moto';

const LIST = `${V2_BASE_PATH}/store/orders`;

describeWithMoto('v2 cursors across a rotation of their key', () => {
  let moto: Moto;
  let secrets: SecretsManagerClient;
  let stack: LocalStack;
  let secretArn: string;
  let key: string;
  /** The clock the keyrings space their renewals by (the requests' own clock is the stack's). */
  const keyClock = { now: Date.UTC(2026, 10, 22) };
  const keyTimers = { now: () => keyClock.now, after: () => () => undefined };
  const seeded: SyncedOrder[] = Array.from({ length: 6 }, (_, i) => ({
    id: String(i + 1),
    status: 'pending',
    updatedAt: new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString(),
  }));
  /** Other apps on the stack's tables: other containers of the same function. */
  const others: { close(): Promise<void> }[] = [];

  const keyringFor = (secretId: string) =>
    cursorKeyring({ read: secretsManagerReader(secrets), secretId, timers: keyTimers });

  async function container(secretId: string): Promise<string> {
    const app = createLocalApp({
      endpoint: stack.tables.endpoint,
      tables: stack.tables.names,
      now: stack.clock.now,
      cursorKey: keyringFor(secretId),
    });
    await new Promise<void>((resolve) => app.server.listen(0, '127.0.0.1', resolve));
    others.push({
      close: () =>
        new Promise<void>((resolve) => {
          app.server.closeAllConnections();
          app.server.close(() => resolve());
        }),
    });
    return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }

  beforeAll(async () => {
    moto = await startMoto();
    secrets = moto.secretsManager();
    const created = await secrets.send(
      new CreateSecretCommand({ Name: 'cursor-key', SecretString: 'first-key-'.repeat(6) }),
    );
    secretArn = created.ARN ?? '';
    stack = await startLocalStack({ cursorKey: keyringFor(secretArn) });
    ({ key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS));
    await stack.app.orders.putMany(seeded);
  });
  afterAll(async () => {
    for (const other of others) await other.close();
    await stack.close();
    secrets.destroy();
    await moto.stop();
  });

  async function page(base: string, query: string): Promise<{ orders: { id: number }[]; nextCursor?: string }> {
    const response = await fetch(`${base}${LIST}?${query}`, { headers: bearer(key) });
    expect(response.status).toBe(200);
    return (await response.json()) as { orders: { id: number }[]; nextCursor?: string };
  }
  const next = (cursor: string | undefined) => `cursor=${encodeURIComponent(cursor ?? '')}&limit=2`;

  test('a walk begun before a rotation goes on after it, from a container started before it or after it', async () => {
    const before = stack.baseUrl;
    const first = await page(before, 'status=pending&limit=2');
    await secrets.send(new PutSecretValueCommand({ SecretId: secretArn, SecretString: 'second-key'.repeat(6) }));
    const after = await container(secretArn);

    // The container started after the rotation opens a cursor sealed before it (the previous key) ...
    const second = await page(after, next(first.nextCursor));
    // ... and seals the next with the new key, which the older container has not read: it reads the
    // keys again (no sooner than CURSOR_KEY_RENEW_MS after its last read) and opens it.
    keyClock.now += CURSOR_KEY_RENEW_MS;
    const third = await page(before, next(second.nextCursor));
    expect(third.nextCursor).toBeUndefined();
    const ids = [first, second, third].flatMap((p) => p.orders.map((o) => String(o.id)));
    expect(ids).toEqual(seeded.map((o) => o.id));
  });

  test('keys that cannot be read answer 503 SERVICE_UNAVAILABLE with Retry-After and an Error body, not a 500', async () => {
    const broken = await container(`${secretArn.slice(0, -6)}nope00`);
    const response = await fetch(`${broken}${LIST}?limit=2`, { headers: bearer(key) });
    expect(response.headers.get('retry-after')).toBe(String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
    await expectError(response, 503, 'SERVICE_UNAVAILABLE');
  });
});
