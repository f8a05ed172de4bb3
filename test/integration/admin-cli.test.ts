import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hashApiKey } from '../../lib/core/access/key-format';
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

// Usage mistakes and their lines are test/unit/admin-args.spec.ts's; here, what the process does with them.
test('the bin launcher runs the same command, with its exit statuses, and names an option npm took', async () => {
  const bin = join(root, 'tools/admin/bin.cjs');
  // One after another: four node processes side by side cost about 2 CPU-s more on two cores (measured).
  const listed = await cli(process.execPath, [bin, 'keys', 'list', '--json']);
  const usage = await cli(process.execPath, [bin, 'keys', 'create']);
  const failure = await cli(process.execPath, [bin, 'orders', 'ship', '42']);
  // What `npm run admin keys list --json` leaves the script: npm keeps --json, in its environment only.
  const taken = await cli(process.execPath, [bin, 'keys', 'list'], { npm_config_json: 'true' });
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toHaveLength(1);

  expect(usage).toMatchObject({ code: 2, stdout: '' });
  expect(usage.stderr).toContain('keys create needs --plan');

  expect(failure.code).toBe(1);
  expect(failure.stderr).toContain('No order with id 42');
  expect(failure.stderr).not.toMatch(/\n\s+at /);

  expect(taken).toEqual({
    code: 2,
    stdout: '',
    stderr:
      "Error: npm took --json as its own option: put the command's arguments after --, e.g. npm run admin -- keys list --json (npm run admin -- --help lists the commands)\n",
  });
}, 60_000);

// `npm run --silent admin -- keys list | head -1`: the reader closes the pipe before the command writes.
test('a stdout closed by its reader ends the command quietly, with exit 0', async () => {
  const child = spawn(process.execPath, [join(root, 'tools/admin/bin.cjs'), 'keys', 'list'], {
    cwd: root,
    env: {
      ...process.env,
      DYNAMODB_ENDPOINT: tables.endpoint,
      ORDERS_TABLE: tables.names.orders,
      API_KEYS_TABLE: tables.names.apiKeys,
      RATE_LIMIT_TABLE: tables.names.rateLimits,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Closed before the child has started: its first write always meets a pipe with no reader.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
}, 60_000);
