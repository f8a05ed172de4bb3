// The run-time secret reads of the deployed functions (lib/root/secrets.ts, lib/root/cursor-key.ts)
// against moto_server's Secrets Manager (test/support/moto.ts): the SDK's real wire protocol and
// error mapping, both stages of the cursor key and a rotation, a failed read not kept; and a
// Secrets Manager that never answers, given up on at the declared timeout on a virtual clock.
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { functionEntry } from '../../infra/functions';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { CURSOR_KEY_RENEW_MS, CURSOR_KEY_SECRET_ENV } from '../../lib/contract/sync';
import { SECRET_READ_TIMEOUT_MS } from '../../lib/contract/secrets';
import { ERRORS } from '../../lib/contract/errors';
import { openCursorWith, sealCursor, type CursorContent } from '../../lib/core/sync/cursor';
import { bundle } from '../../bench/support/child';
import { CursorKeyUnavailableError, cursorKeyring, cursorKeysFromEnv } from '../../lib/root/cursor-key';
import { SecretReadTimeoutError, secretsManagerReader } from '../../lib/root/secrets';
import { VirtualTime } from '../support/virtual-time';
import { describeWithMoto, MOTO_REGION, startMoto, type Moto } from '../support/moto';

const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const content: CursorContent = { filters: { status: 'pending' }, position: { kind: 'scan', after: '7' }, started: T0 };
const utf8 = (value: string) => Buffer.from(value, 'utf8');

describeWithMoto('secrets read at run time, against moto', () => {
  let moto: Moto;
  let client: SecretsManagerClient;
  /** GetSecretValue calls the client sent. */
  let reads = 0;

  beforeAll(async () => {
    moto = await startMoto();
    client = moto.secretsManager();
    client.middlewareStack.add(
      (next, context) => (args) => {
        if (context.commandName === 'GetSecretValueCommand') reads++;
        return next(args);
      },
      { step: 'initialize', name: 'countReads' },
    );
  });
  afterAll(async () => {
    client.destroy();
    await moto.stop();
  });
  beforeEach(async () => {
    await moto.reset();
    reads = 0;
  });

  async function createSecret(name: string, value: string): Promise<string> {
    const { ARN } = await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
    if (!ARN) throw new Error('moto gave no secret ARN');
    return ARN;
  }

  test('a secret is read by ARN; an unknown one is refused as Secrets Manager refuses it', async () => {
    const arn = await createSecret('cursor-key', 'k'.repeat(64));
    const read = secretsManagerReader(client);
    await expect(read(arn)).resolves.toBe('k'.repeat(64));
    await expect(read(arn, { stage: 'AWSCURRENT' })).resolves.toBe('k'.repeat(64));
    await expect(read(arn, { stage: 'AWSPREVIOUS' })).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(read(`${arn.slice(0, -6)}nope00`)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test("the cursor keys are the secret's current version, and after a rotation its previous one too", async () => {
    const arn = await createSecret('stage-cursor-key', 'A1b2'.repeat(16));
    const read = secretsManagerReader(client);
    await expect(cursorKeysFromEnv(read, { [CURSOR_KEY_SECRET_ENV]: arn })?.held()).resolves.toEqual({
      current: utf8('A1b2'.repeat(16)),
    });
    expect(cursorKeysFromEnv(read, {})).toBeUndefined();
    await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'C3d4'.repeat(16) }));
    await expect(cursorKeyring({ read, secretId: arn }).held()).resolves.toEqual({
      current: utf8('C3d4'.repeat(16)),
      previous: utf8('A1b2'.repeat(16)),
    });
  });

  test('the keys are read once and kept, however many requests ask at once or later', async () => {
    const arn = await createSecret('kept', 'k'.repeat(64));
    const keys = cursorKeyring({ read: secretsManagerReader(client), secretId: arn });
    const [a, b] = await Promise.all([keys.held(), keys.held()]);
    expect(a).toBe(b);
    await keys.held();
    // Two reads: AWSCURRENT, and AWSPREVIOUS, which a secret never rotated has none of.
    expect(reads).toBe(2);
  });

  describe('a rotation does not break the cursors already issued', () => {
    const clock = { now: T0 };
    const timers = { now: () => clock.now, after: () => () => undefined };

    test('a cursor sealed before it opens after it, in a container started before or after it', async () => {
      const arn = await createSecret('rotated', 'first-key-'.repeat(6));
      const read = secretsManagerReader(client);
      const before = cursorKeyring({ read, secretId: arn, timers });
      const issued = sealCursor(content, await before.held());
      await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'second-key'.repeat(6) }));
      const after = cursorKeyring({ read, secretId: arn, timers });
      await expect(openCursorWith(after, issued, T0)).resolves.toEqual(content);
      await expect(openCursorWith(before, issued, T0)).resolves.toEqual(content);
    });

    test('a cursor sealed after it with the new key opens in a container that read the keys before it, once it reads them again', async () => {
      const arn = await createSecret('mixed', 'first-key-'.repeat(6));
      const read = secretsManagerReader(client);
      const old = cursorKeyring({ read, secretId: arn, timers });
      await old.held();
      await client.send(new PutSecretValueCommand({ SecretId: arn, SecretString: 'second-key'.repeat(6) }));
      const fresh = cursorKeyring({ read, secretId: arn, timers });
      const sealedNew = sealCursor(content, await fresh.held());
      expect((await fresh.held()).current).toEqual(utf8('second-key'.repeat(6)));
      // Within CURSOR_KEY_RENEW_MS of its last read the old container judges with what it holds.
      await expect(openCursorWith(old, sealedNew, T0)).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
      clock.now += CURSOR_KEY_RENEW_MS;
      reads = 0;
      await expect(openCursorWith(old, sealedNew, T0)).resolves.toEqual(content);
      expect(reads).toBe(2);
      // It holds the new keys from now on: the next such cursor needs no read.
      await expect(openCursorWith(old, sealCursor(content, await fresh.held()), T0)).resolves.toEqual(content);
      expect(reads).toBe(2);
    });
  });

  test('keys that cannot be read are a 503 SERVICE_UNAVAILABLE naming the secret; nothing is kept, the next request reads again', async () => {
    const keys = cursorKeyring({ read: secretsManagerReader(client), secretId: 'later' });
    const failure = keys.held();
    await expect(failure).rejects.toBeInstanceOf(CursorKeyUnavailableError);
    await expect(failure).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: expect.stringMatching(/could not be read from its secret later \(ResourceNotFoundException: /),
    });
    expect(ERRORS.SERVICE_UNAVAILABLE.status).toBe(503);
    await createSecret('later', 'now here');
    await expect(keys.held()).resolves.toEqual({ current: utf8('now here') });
  });

  test("a read given an aborted signal (the release hook's bound) is dropped; one without reads as before", async () => {
    const arn = await createSecret('bounded', 'value');
    const read = secretsManagerReader(client);
    const controller = new AbortController();
    controller.abort(new Error('the bound is up'));
    await expect(read(arn, { abortSignal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    await expect(read(arn, { abortSignal: new AbortController().signal })).resolves.toBe('value');
    await expect(read(arn)).resolves.toBe('value');
  });

  test('a secret holding no string (binary) is refused in one clear line', async () => {
    const { ARN } = await client.send(new CreateSecretCommand({ Name: 'binary', SecretBinary: Buffer.from([1, 2]) }));
    await expect(secretsManagerReader(client)(ARN ?? 'binary')).rejects.toThrow(/holds no string/);
  });

  // The real path: the function's bundle, as deployed, loading in a fresh Node as Lambda loads it.
  test('the deployed list-orders-v2 reads the secret its environment names while it loads; without it, it logs why in one line and loads', async () => {
    const arn = await createSecret('bundle-cursor-key', 'B'.repeat(64));
    const dir = mkdtempSync(path.join(tmpdir(), 'v2-bundle-'));
    try {
      const file = await bundle(functionEntry('list-orders-v2'), dir, 'list-orders-v2');
      const load = (secretArn: string) =>
        spawnSync(
          process.execPath,
          [
            '--input-type=module',
            '-e',
            `globalThis.awslambda = { streamifyResponse: (h) => h, HttpResponseStream: { from: (s) => s } };
             const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
             process.stdout.write(typeof mod.handler);`,
          ],
          {
            encoding: 'utf8',
            timeout: 30_000,
            env: {
              PATH: process.env.PATH,
              AWS_REGION: MOTO_REGION,
              AWS_ACCESS_KEY_ID: 'testing',
              AWS_SECRET_ACCESS_KEY: 'testing',
              // The SDK's service-specific endpoint variable: Secrets Manager is moto.
              AWS_ENDPOINT_URL_SECRETS_MANAGER: moto.endpoint,
              ...Object.fromEntries((Object.keys(TABLES) as TableId[]).map((id) => [TABLES[id].envVar, `t-${id}`])),
              [CURSOR_KEY_SECRET_ENV]: secretArn,
            },
          },
        );
      const loaded = load(arn);
      expect(loaded.stderr).toBe('');
      expect(loaded.stdout).toBe('function');
      // A failed read does not fail the init (each request reads again, and answers 503 while it
      // cannot): the container starts, and its log says what could not be read, and why.
      const missing = load(`${arn.slice(0, -6)}nope00`);
      expect(missing.status).toBe(0);
      expect(missing.stdout).toBe('function');
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(JSON.parse(missing.stderr)).toMatchObject({
        level: 'ERROR',
        message: 'v2 cursor key unread at init',
        error: {
          name: 'CursorKeyUnavailableError',
          message: expect.stringMatching(/could not be read from its secret .*nope00 \(ResourceNotFoundException: /),
        },
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

// A Secrets Manager that takes the connection and never answers: the read is aborted at the declared
// timeout, on a virtual clock (no real waiting), and the keys' read fails as a 503 naming the secret.
describe('a Secrets Manager that never answers', () => {
  let server: Server;
  let received = 0;
  let endpoint = '';
  beforeAll(async () => {
    server = createServer((socket) => {
      received++;
      socket.on('data', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    endpoint = `http://127.0.0.1:${address.port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  test('a read is given up on at SECRET_READ_TIMEOUT_MS; the cursor keys then answer 503, not a hang', async () => {
    const time = new VirtualTime(T0);
    const client = new SecretsManagerClient({ endpoint, region: MOTO_REGION, credentials, maxAttempts: 1 });
    try {
      const read = secretsManagerReader(client, { timers: time.asTimers });
      const before = received;
      // Real I/O until the request has reached the server; from then on only the timeout can end it.
      const busy = (from: number) => () => received === from;
      await expect(time.run(read('hanging'), { busy: busy(before) })).rejects.toBeInstanceOf(SecretReadTimeoutError);
      expect(time.now() - T0).toBe(SECRET_READ_TIMEOUT_MS);

      const keys = cursorKeyring({ read, secretId: 'hanging', timers: time.asTimers });
      const reading = keys.held();
      const connected = received;
      await expect(time.run(reading, { busy: () => received < connected + 2 })).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringContaining(
          `hanging (SecretReadTimeoutError: Secrets Manager did not answer a read of hanging within ${SECRET_READ_TIMEOUT_MS} ms)`,
        ),
      });
      expect(time.now() - T0).toBe(2 * SECRET_READ_TIMEOUT_MS);
    } finally {
      client.destroy();
    }
  });
});
