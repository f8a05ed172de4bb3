// The run-time secret reads of the deployed functions (lib/root/secrets.ts, lib/root/cursor-key.ts)
// against moto_server's Secrets Manager (test/support/moto.ts): the SDK's real wire protocol and
// error mapping, the read kept per container, a failed read not kept.
import { CreateSecretCommand, PutSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { functionEntry } from '../../infra/functions';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { CURSOR_KEY_SECRET_ENV } from '../../lib/contract/sync';
import { bundle } from '../../bench/support/child';
import { cursorKeyFromEnv } from '../../lib/root/cursor-key';
import { cachedSecrets, secretsManagerReader } from '../../lib/root/secrets';
import { describeWithMoto, MOTO_REGION, startMoto, type Moto } from '../support/moto';

describeWithMoto('secrets read at run time, against moto', () => {
  let moto: Moto;
  let client: SecretsManagerClient;
  /** GetSecretValue calls the client sent. */
  let reads = 0;

  beforeAll(async () => {
    moto = await startMoto();
    client = new SecretsManagerClient({
      endpoint: moto.endpoint,
      region: MOTO_REGION,
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    });
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
    await expect(read(`${arn.slice(0, -6)}nope00`)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('a cached reader reads each secret once, however many callers ask at once or later', async () => {
    const [a, b] = [await createSecret('a', 'first'), await createSecret('b', 'second')];
    const read = cachedSecrets(secretsManagerReader(client));
    await expect(Promise.all([read(a), read(a), read(b)])).resolves.toEqual(['first', 'first', 'second']);
    // A value changed after the first read is not seen: the container keeps what it read.
    await client.send(new PutSecretValueCommand({ SecretId: a, SecretString: 'changed' }));
    await expect(read(a)).resolves.toBe('first');
    expect(reads).toBe(2);
  });

  test('a failed read is not kept: the next call reads again', async () => {
    const read = cachedSecrets(secretsManagerReader(client));
    await expect(read('later')).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await createSecret('later', 'now here');
    await expect(read('later')).resolves.toBe('now here');
    expect(reads).toBe(2);
  });

  test("the v2 listing's cursor key is the secret its environment names, as bytes; none without one", async () => {
    const arn = await createSecret('stage-cursor-key', 'A1b2'.repeat(16));
    const read = secretsManagerReader(client);
    await expect(cursorKeyFromEnv(read, { [CURSOR_KEY_SECRET_ENV]: arn })).resolves.toEqual(
      Buffer.from('A1b2'.repeat(16), 'utf8'),
    );
    await expect(cursorKeyFromEnv(read, {})).resolves.toBeUndefined();
    expect(reads).toBe(1);
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
  test('the deployed list-orders-v2 reads the secret its environment names while it loads, and fails its init without it', async () => {
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
      const missing = load(`${arn.slice(0, -6)}nope00`);
      expect(missing.status).not.toBe(0);
      expect(missing.stderr).toMatch(/ResourceNotFoundException/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
