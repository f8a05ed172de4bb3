import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localTarget } from '../../tools/admin/target';
import { recordStack } from '../../tools/shared/stack-state';
import { adminRunner } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

// How the admin command finds the local stack: by the state file npm start writes, on whatever
// ports it chose; or DYNAMODB_PORT as npm start was given it, or DYNAMODB_ENDPOINT.

let tables: TestTables;
beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

function tableEnv(): NodeJS.ProcessEnv {
  return { ORDERS_TABLE: tables.names.orders, API_KEYS_TABLE: tables.names.apiKeys };
}

test('DYNAMODB_PORT points the admin command at the stack on that port, as it does npm start', async () => {
  const port = new URL(tables.endpoint).port;
  const admin = adminRunner(() => localTarget({ ...tableEnv(), DYNAMODB_PORT: port }));
  const created = await admin('keys', 'create', '--plan', 'free', '--json');
  expect(created.code).toBe(0);
  const listed = await admin('keys', 'list', '--json');
  expect(listed.code).toBe(0);
  expect(JSON.parse(listed.stdout)).toEqual([
    expect.objectContaining({ id: (JSON.parse(created.stdout) as { id: string }).id }),
  ]);
});

const closed = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe('with neither DYNAMODB_PORT nor DYNAMODB_ENDPOINT', () => {
  let states: string;
  let api: Server;
  beforeAll(async () => {
    states = mkdtempSync(join(tmpdir(), 'admin-stacks-'));
    // Where a recorded stack's API listens: the record is believed only while its port answers.
    api = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await closed(api);
    rmSync(states, { recursive: true, force: true });
  });

  /** A record as npm start writes it, of a stack whose DynamoDB holds the test tables. */
  const record = (server: Server) => ({
    pid: process.pid,
    apiUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    endpoint: tables.endpoint,
    tables: tables.names,
  });

  test('the one stack npm start recorded is found on its own ports and tables', async () => {
    const forget = recordStack(record(api), { LOCAL_STACK_STATE_DIR: states });
    try {
      const admin = adminRunner(() => localTarget({ LOCAL_STACK_STATE_DIR: states }));
      const created = await admin('keys', 'create', '--plan', 'free', '--json');
      expect({ code: created.code, stderr: created.stderr }).toEqual({ code: 0, stderr: '' });
      const listed = await admin('keys', 'list', '--json');
      expect((JSON.parse(listed.stdout) as { id: string }[]).map((key) => key.id)).toContain(
        (JSON.parse(created.stdout) as { id: string }).id,
      );
    } finally {
      forget();
    }
  });

  test('several running: one line naming the DYNAMODB_PORT of each, exit 2', async () => {
    const other = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const dynamoPort = new URL(tables.endpoint).port;
    const forget = [api, other].map((server) => recordStack(record(server), { LOCAL_STACK_STATE_DIR: states }));
    try {
      const run = await adminRunner(() => localTarget({ LOCAL_STACK_STATE_DIR: states }))('keys', 'list');
      expect({ code: run.code, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
      expect(run.stderr).toMatch(
        /^Error: 2 local stacks are running: pick one, [^\n]+ \(npm run admin -- --help lists the commands\)$/,
      );
      for (const server of [api, other])
        expect(run.stderr).toContain(`DYNAMODB_PORT=${dynamoPort} for ${record(server).apiUrl}`);
    } finally {
      for (const done of forget) done();
      await closed(other);
    }
  });
});

test('when nothing answers on DYNAMODB_PORT, the message names that endpoint and how to point elsewhere', async () => {
  const admin = adminRunner(() => localTarget({ DYNAMODB_PORT: '1' }));
  const run = await admin('keys', 'list');
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('The local stack may not be running with its DynamoDB at http://127.0.0.1:1');
  expect(run.stderr).toContain('DYNAMODB_PORT');
  expect(run.stderr).not.toContain(':8000');
});

test.each([
  [
    { DYNAMODB_ENDPOINT: '127.0.0.1:8000' },
    /DYNAMODB_ENDPOINT must be an http:\/\/ or https:\/\/ URL .* got "127.0.0.1:8000"/,
  ],
  [{ DYNAMODB_ENDPOINT: 'localhost:8000' }, /DYNAMODB_ENDPOINT must be an http:\/\/ or https:\/\/ URL/],
  [{ DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000/v1' }, /DYNAMODB_ENDPOINT must be a server address with no path/],
  [{ DYNAMODB_PORT: 'eight' }, /DYNAMODB_PORT must be a port number/],
])('%j is a usage error that says what a valid value looks like', async (env, message) => {
  const run = await adminRunner(() => localTarget(env))('keys', 'list');
  expect(run).toMatchObject({ code: 2, stdout: '' });
  expect(run.stderr).toMatch(message);
  expect(run.stderr).not.toMatch(/Invalid URL|\n\s+at /);
});

describe('an endpoint that is some other HTTP server', () => {
  let server: Server;
  beforeAll(async () => {
    // Answers like the local API gateway does to a request for no route.
    server = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'NOT_FOUND', message: 'No such resource.', status: 404 }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => closed(server));

  test('says it is not DynamoDB and to use the DynamoDB endpoint, not the API port', async () => {
    const { port } = server.address() as AddressInfo;
    const run = await adminRunner(() => localTarget({ DYNAMODB_ENDPOINT: `http://127.0.0.1:${port}` }))('keys', 'list');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('not DynamoDB');
    expect(run.stderr).toContain("not at the API's port");
    expect(run.stderr).not.toContain('unexpected failure');
  });
});

test('a huge DYNAMODB_PORT or DYNAMODB_ENDPOINT is echoed by its first 40 characters and its length', async () => {
  for (const env of [
    { DYNAMODB_PORT: '9'.repeat(100_000) },
    { DYNAMODB_ENDPOINT: `127.0.0.1:${'8'.repeat(100_000)}` },
  ]) {
    const run = await adminRunner(() => localTarget(env))('keys', 'list');
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/\.\.\. \(1000\d\d characters\)"/);
    expect(run.stderr.length).toBeLessThan(400);
  }
});
