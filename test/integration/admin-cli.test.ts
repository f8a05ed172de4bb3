import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { hashApiKey } from '../../lib/core/access/key-format';
import { ADMIN_BIN, ROOT, runChild, tablesEnv, type Exit } from '../support/admin-cli';
import { createTestTables, type TestTables } from '../support/dynamo';

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

/** The real entry in a child process, pointed at the test tables through the environment. */
function cli(command: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<Exit> {
  return runChild(command, args, { ...extraEnv, ...tablesEnv(tables) });
}

test('npx tsx tools/admin/cli.ts creates a key in the tables the environment names', async () => {
  const created = await cli('npx', ['tsx', 'tools/admin/cli.ts', 'keys', 'create', '--plan', 'pro', '--json']);
  expect(created.code).toBe(0);
  const { key, id, plan } = JSON.parse(created.stdout) as { key: string; id: string; plan: string };
  expect(plan).toBe('pro');
  const record = await tables.stores().keys.get(id);
  expect(record?.hash).toBe(hashApiKey(key));
}, 60_000);

// Usage mistakes and their lines are test/unit/admin-args.spec.ts's; here, what the process does with them.
test('the bin launcher runs the same command, with its exit statuses, and names an option npm took', async () => {
  // One after another: four node processes side by side cost about 2 CPU-s more on two cores (measured).
  const listed = await cli(process.execPath, [ADMIN_BIN, 'keys', 'list', '--json']);
  const usage = await cli(process.execPath, [ADMIN_BIN, 'keys', 'create']);
  const failure = await cli(process.execPath, [ADMIN_BIN, 'orders', 'ship', '42']);
  // What `npm run admin keys list --json` leaves the script: npm keeps --json, in its environment only.
  const taken = await cli(process.execPath, [ADMIN_BIN, 'keys', 'list'], { npm_config_json: 'true' });
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
  const child = spawn(process.execPath, [ADMIN_BIN, 'keys', 'list'], {
    cwd: ROOT,
    env: { ...process.env, ...tablesEnv(tables) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Closed before the child has started: its first write always meets a pipe with no reader.
  child.stdout.destroy();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
}, 60_000);
