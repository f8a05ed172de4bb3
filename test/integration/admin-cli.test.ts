import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hashApiKey } from '../../lib/core/key-format';
import { ApiKeysRepository } from '../../lib/stores/api-keys';
import { createTestTables, type TestTables } from '../support/dynamo';

const run = promisify(execFile);
const root = join(__dirname, '../..');

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

interface Exit {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real entry in a child process, pointed at the test tables through the environment. */
async function cli(command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Exit> {
  const env = {
    ...process.env,
    ...extraEnv,
    DYNAMODB_ENDPOINT: tables.endpoint,
    ORDERS_TABLE: tables.names.orders,
    API_KEYS_TABLE: tables.names.apiKeys,
    RATE_LIMIT_TABLE: tables.names.rateLimits,
  };
  try {
    const { stdout, stderr } = await run(command, args, { cwd: root, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

test('npx tsx tools/admin/cli.ts creates a key in the tables the environment names', async () => {
  const created = await cli('npx', ['tsx', 'tools/admin/cli.ts', 'keys', 'create', '--plan', 'pro', '--json']);
  expect(created.code).toBe(0);
  const { key, id, plan } = JSON.parse(created.stdout) as { key: string; id: string; plan: string };
  expect(plan).toBe('pro');
  const record = await new ApiKeysRepository(tables.doc, tables.names.apiKeys).get(id);
  expect(record?.hash).toBe(hashApiKey(key));
}, 60_000);

test('the bin launcher runs the same command, with its exit statuses', async () => {
  const bin = join(root, 'tools/admin/bin.cjs');
  const listed = await cli(process.execPath, [bin, 'keys', 'list', '--json']);
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toHaveLength(1);

  const usage = await cli(process.execPath, [bin, 'keys', 'create']);
  expect(usage).toMatchObject({ code: 2, stdout: '' });
  expect(usage.stderr).toContain('keys create needs --plan');

  const failure = await cli(process.execPath, [bin, 'orders', 'ship', '42']);
  expect(failure.code).toBe(1);
  expect(failure.stderr).toContain('No order with id 42');
  expect(failure.stderr).not.toMatch(/\n\s+at /);
}, 60_000);

test('`npm run admin keys list --json` (npm took --json) is one line saying to put it after --, exit 2', async () => {
  const bin = join(root, 'tools/admin/bin.cjs');
  // What npm leaves a script when it keeps --json for itself: the option in its environment only.
  const taken = await cli(process.execPath, [bin, 'keys', 'list'], { npm_config_json: 'true' });
  expect(taken).toMatchObject({ code: 2, stdout: '' });
  expect(taken.stderr).toBe(
    "Error: npm took --json as its own option: put the command's arguments after --, e.g. npm run admin -- keys list --json (npm run admin -- --help lists the commands)\n",
  );
}, 60_000);

test('a usage mistake is one line with where to find the usage', async () => {
  const bin = join(root, 'tools/admin/bin.cjs');
  const usage = await cli(process.execPath, [bin, 'keys', 'revoke']);
  expect(usage).toMatchObject({ code: 2, stdout: '' });
  expect(usage.stderr).toBe('Error: keys revoke takes <key-id> (npm run admin -- --help lists the commands)\n');
}, 60_000);
