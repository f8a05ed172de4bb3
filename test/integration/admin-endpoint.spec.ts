import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { localTarget } from '../../tools/admin/target';
import { adminRunner } from '../support/admin-harness';
import { createTestTables, type TestTables } from '../support/dynamo';

// How the admin command finds the local stack: the same DYNAMODB_PORT as npm start, or DYNAMODB_ENDPOINT.

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
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

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
