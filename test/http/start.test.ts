import { execFile, execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteItemCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { documentClient } from '../../lib/root/wiring';
import { BUSINESS_METRICS } from '../../lib/edge/metrics';
import { hashApiKey, keyIdFromHash } from '../../lib/core/access/key-format';
import { DEMO_ORDERS, demoKey } from '../../tools/local/demo-content';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';
import { createTables } from '../../tools/local/create-tables';
import { LOCAL_QUEUE_PATH } from '../../tools/local/sqs-endpoint';
import { LOCAL_TABLES } from '../../tools/shared/local-config';
import { ORDER_INDEXES } from '../../lib/contract/tables';
import { parseStartArgs, START_USAGE, startFailure } from '../../tools/local/start-args';
import { startLocalStack } from '../../tools/local/serve';
import { EXIT_USAGE } from '../../tools/shared/errors';
import { storesOn } from '../support/stores';

// `npm start`: its stack started in this process from the command line as start.ts reads it, and
// the real entry in a child process only where the process is the point (exit statuses, what an
// uncaught error or a signal does, the log level set before the handlers load, the Node.js it runs
// on). Command-line mistakes alone are test/unit/start-args.test.ts's.

const root = join(__dirname, '../..');

/**
 * The environment of a user's shell: none of npm's or jest's own variables. The stacks' state files
 * go to this test's folder, never among those of a stack the user runs (npm stop would see them).
 */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|POWERTOOLS_|DYNAMODB_|PORT$)/.test(name)) env[name] = value;
  }
  return { ...env, LOCAL_STACK_STATE_DIR: join(dir, 'stacks'), ...extra };
}

interface Started {
  /** The process started: npm for `npm start`, else the stack's own node. */
  child?: ChildProcess;
  output: () => string;
  /** The banner's lines once it is printed. */
  banner: string[];
  apiUrl: string;
  dynamoEndpoint: string;
  stop(): Promise<void>;
}

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

function launch(args: string[], env: NodeJS.ProcessEnv, node = process.execPath): ChildProcess {
  return spawn(node, ['--import', 'tsx', 'tools/local/start.ts', ...args], { cwd: root, env });
}

/** Runs npm start until it exits (a mistake, or --help). */
function runToExit(args: string[], env = userEnv(), node = process.execPath): Promise<Exited> {
  const child = launch(args, env, node);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** Starts the real entry on free ports, or `npm start` itself, and waits for its banner. */
function start(args: string[], env = userEnv(), through: 'node' | 'npm' = 'node'): Promise<Started> {
  const child =
    through === 'npm'
      ? spawn('npm', ['start', '--', '--port', '0', ...args], { cwd: root, env })
      : launch(['--port', '0', ...args], env);
  let output = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const lines = output.split('\n');
      const end = lines.findIndex((line) => line.startsWith('API reference:'));
      if (end < 0) return;
      // Through npm, after npm's own lines naming the script.
      const banner = lines.slice(
        Math.max(
          0,
          lines.findIndex((line) => line.startsWith('Store Orders API')),
        ),
        end + 1,
      );
      const apiUrl = /at (http:\S+)/.exec(banner[0] ?? '')?.[1] ?? '';
      const dynamoEndpoint = /DynamoDB at (http:\S+)/.exec(banner[1] ?? '')?.[1] ?? '';
      resolve({
        child,
        output: () => output,
        banner,
        apiUrl,
        dynamoEndpoint,
        stop: () =>
          new Promise<void>((done) => {
            child.once('close', () => done());
            // Ctrl-C, as a user stops it.
            child.kill('SIGINT');
          }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
  });
}

/** npm start's stack in this process on free ports, from the command line and environment given. */
async function startHere(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Started> {
  const options = parseStartArgs(['--port', '0', ...args], env);
  if (options === 'help') throw new Error('--help starts nothing');
  const stack = await startLocalStack(options);
  return { ...stack, output: () => stack.banner.join('\n'), stop: () => stack.close() };
}

/** The one line and exit status npm start ends with when this start fails, in this process. */
async function startMistake(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ line: string; code: number }> {
  const started = await startHere(args, env).then(
    (stack) => stack,
    (error: unknown) => startFailure(error),
  );
  if ('line' in started) return started;
  await started.stop();
  throw new Error(`npm start ${args.join(' ')} started`);
}

/** The local stack's stores, from the composition root, and their document client. */
function repositories(endpoint: string) {
  const made = storesOn({ endpoint, names: LOCAL_TABLES });
  const { orders, keys, wiring } = made.stores();
  return { doc: documentClient(wiring), orders, keys, close: made.close };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'store-orders-start-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** One line on stderr, exit 2, nothing on stdout, no stack trace. */
function expectOneLineMistake(exited: Exited, message: RegExp): void {
  expect(exited.code).toBe(2);
  expect(exited.stdout).toBe('');
  expect(exited.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(exited.stderr).toMatch(message);
  expect(exited.stderr).not.toMatch(/\n\s+at |ERR_PARSE_ARGS/);
}

test('a mistake on the command line: one line on stderr, nothing on stdout, exit 2', async () => {
  expectOneLineMistake(
    await runToExit(['--bogus']),
    /^npm start: Unknown option '--bogus' \(npm start -- --help lists the options\)\n$/,
  );
}, 60_000);

test('a --data-dir that is a file, or a --host of no address here: one line, exit 2', async () => {
  const file = join(dir, 'a-file');
  await writeFile(file, 'not a folder');
  const usage = (line: string) => ({ line: `npm start: ${line}`, code: EXIT_USAGE });
  expect(await startMistake(['--data-dir', file])).toEqual(usage(`--data-dir ${file} is a file, not a folder`));
  // An address no machine has (TEST-NET-1), and a name that cannot resolve.
  const noAddress = (host: string) =>
    usage(`--host ${host} is not an address of this machine: use 127.0.0.1 (the default), 0.0.0.0 or one of its own`);
  expect(await startMistake(['--dynamodb-port', '0', '--host', '192.0.2.1'])).toEqual(noAddress('192.0.2.1'));
  expect(await startMistake(['--host', 'nosuch.invalid', '--no-demo'])).toEqual(noAddress('nosuch.invalid'));
}, 60_000);

test('a busy port or an unreachable --dynamodb-endpoint is one line and exit 2', async () => {
  const busy = await startEmbeddedDynamo({ port: 0 });
  try {
    const [dynamoPort, apiPort, unreachable] = await Promise.all([
      startMistake(['--dynamodb-port', String(busy.port)]),
      startMistake(['--port', String(busy.port), '--dynamodb-port', '0']),
      startMistake(['--dynamodb-endpoint', 'http://127.0.0.1:1']),
    ]);
    expect(dynamoPort).toEqual({
      line: `npm start: DynamoDB port ${busy.port} is in use (another npm start?): choose another with --dynamodb-port or DYNAMODB_PORT`,
      code: EXIT_USAGE,
    });
    expect(apiPort).toEqual({
      line: `npm start: API port ${busy.port} is in use: choose another with --port or PORT`,
      code: EXIT_USAGE,
    });
    expect(unreachable).toEqual({
      line: 'npm start: Cannot reach DynamoDB at http://127.0.0.1:1 (--dynamodb-endpoint): is the server running?',
      code: EXIT_USAGE,
    });
  } finally {
    await busy.close();
  }
}, 120_000);

test('a second npm start on the same --data-dir is one line and exit 2', async () => {
  const dataDir = join(dir, 'shared');
  const first = await startHere(['--dynamodb-port', '0', '--data-dir', dataDir]);
  try {
    // The real entry: dynalite's refusal comes as an uncaught exception, which start.ts words.
    const second = await runToExit(['--port', '0', '--dynamodb-port', '0', '--data-dir', dataDir]);
    expectOneLineMistake(second, /--data-dir .* is in use by another npm start/);
  } finally {
    await first.stop();
  }
}, 120_000);

test('--no-demo starts with empty tables and prints no key', async () => {
  const stack = await startHere(['--dynamodb-port', '0', '--no-demo']);
  const repos = repositories(stack.dynamoEndpoint);
  try {
    expect(stack.banner.join('\n')).toContain('No demo data (--no-demo).');
    expect(stack.banner.join('\n')).not.toContain('sok_');
    expect(await repos.keys.list()).toEqual([]);
    expect(await repos.orders.get('1')).toBeUndefined();
  } finally {
    repos.close();
    await stack.stop();
  }
}, 60_000);

test('demo data goes only into a new --data-dir; a revoked demo key is not printed again', async () => {
  const dataDir = join(dir, 'kept');
  const first = await startHere(['--dynamodb-port', '0', '--data-dir', dataDir]);
  expect(first.banner.join('\n')).toContain(demoKey('free'));
  // The user replaces demo order 1 with an order of their own and revokes the free demo key.
  const repos = repositories(first.dynamoEndpoint);
  const own = { id: '1', petId: '777', quantity: 9, status: 'pending' } as const;
  try {
    await repos.doc.send(new DeleteCommand({ TableName: LOCAL_TABLES.orders, Key: { id: 1 } }));
    expect(await repos.orders.create(own)).toBe(true);
    expect(await repos.keys.revoke(keyIdFromHash(hashApiKey(demoKey('free'))), new Date())).toBeDefined();
  } finally {
    repos.close();
    await first.stop();
  }

  const second = await startHere(['--dynamodb-port', '0', '--data-dir', dataDir]);
  const after = repositories(second.dynamoEndpoint);
  try {
    const banner = second.banner.join('\n');
    expect(banner).toContain('nothing seeded');
    expect(banner).not.toContain(demoKey('free'));
    expect(banner).toContain(demoKey('pro'));
    expect(await after.orders.get('1')).toEqual(own);
  } finally {
    after.close();
    await second.stop();
  }
}, 120_000);

test('--dynamodb-endpoint creates and seeds the tables on a server of the user’s; the banner names it for the admin command', async () => {
  const server = await startEmbeddedDynamo({ port: 0 });
  const stack = await startHere(['--dynamodb-endpoint', server.endpoint]);
  const repos = repositories(server.endpoint);
  try {
    expect(stack.dynamoEndpoint).toBe(server.endpoint);
    expect(stack.banner.join('\n')).toContain(
      `Admin command for this stack: DYNAMODB_ENDPOINT=${server.endpoint} npm run --silent admin`,
    );
    const demo = DEMO_ORDERS[0];
    expect(demo && (await repos.orders.get(demo.id))).toEqual(demo);
    expect(await repos.keys.list()).toHaveLength(4);
  } finally {
    repos.close();
    await stack.stop();
    await server.close();
  }
}, 60_000);

/**
 * npm start with DYNAMODB_PORT set to a port known to be free: one a probe server just released.
 * Until npm start binds it (a second or more later) a listen(0) elsewhere may be handed it: npm
 * start then exits saying that port is in use, and another port is tried. Any other failure fails.
 */
async function startOnReleasedDynamoPort(): Promise<{ stack: Started; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const probe = await startEmbeddedDynamo({ port: 0 });
    const { port } = probe;
    await probe.close();
    try {
      return { stack: await startHere([], { DYNAMODB_PORT: String(port) }), port };
    } catch (error) {
      if (attempt === 3 || !String(error).includes(`DynamoDB port ${port} is in use`)) throw error;
    }
  }
}

test('the banner gives the admin command with the DYNAMODB_PORT the stack runs on', async () => {
  const { stack, port } = await startOnReleasedDynamoPort();
  try {
    expect(stack.dynamoEndpoint).toBe(`http://127.0.0.1:${port}`);
    expect(stack.banner.join('\n')).toContain(
      `Admin command for this stack: DYNAMODB_PORT=${port} npm run --silent admin -- keys list`,
    );
  } finally {
    await stack.stop();
  }
}, 120_000);

test('with --dynamodb-port 0, the admin command names the port the system gave, not 0', async () => {
  const stack = await startHere(['--dynamodb-port', '0', '--no-demo']);
  try {
    const port = new URL(stack.dynamoEndpoint).port;
    expect(Number(port)).toBeGreaterThan(0);
    expect(stack.banner.join('\n')).toContain(
      `Admin command for this stack: DYNAMODB_PORT=${port} npm run --silent admin -- keys list`,
    );
  } finally {
    await stack.stop();
  }
}, 60_000);

test('--index-lag-ms and --hold-writes-ms make the embedded server as late as asked; the banner says so', async () => {
  const stack = await startHere([
    ...['--dynamodb-port', '0', '--no-demo', '--index-lag-ms', '600000'],
    ...['--hold-writes-ms', '600000', '--hold-writes-every', '2'],
  ]);
  const client = createDynamoClient({ endpoint: stack.dynamoEndpoint });
  const doc = createDocumentClient(client);
  const { byUpdate } = ORDER_INDEXES;
  const order = (id: number) => ({
    id,
    [byUpdate.partitionKey.name]: 'all#0',
    [byUpdate.sortKey.name]: `2026-11-28T12:00:00.000Z#${String(id).padStart(20, '0')}`,
  });
  const stored = (id: number) =>
    doc.send(new GetCommand({ TableName: LOCAL_TABLES.orders, Key: { id } })).then(({ Item }) => Item !== undefined);
  try {
    expect(stack.banner.join('\n')).toContain(
      "(in memory; indexes up to 600000 ms behind writes; 1 write in 2 held 600000 ms; the orders table's change stream read by the sync watch and the webhook fan-out; the index-lag canary every minute)",
    );
    // Of three writes at least one is held (of any two writes one is; the index-lag canary writes too,
    // so which depends on when its probe lands): one answered is stored, and yet not in the index.
    const gaveUp = new AbortController();
    const ids = [1, 2, 3];
    const writes = ids.map((id) =>
      doc
        .send(new PutCommand({ TableName: LOCAL_TABLES.orders, Item: order(id) }), { abortSignal: gaveUp.signal })
        .then(() => id),
    );
    const answered = await Promise.race(writes);
    expect(await stored(answered)).toBe(true);
    expect(await Promise.all(ids.map(stored))).toContain(false);
    const indexed = await doc.send(
      new QueryCommand({
        TableName: LOCAL_TABLES.orders,
        IndexName: byUpdate.name,
        KeyConditionExpression: '#p = :p',
        ExpressionAttributeNames: { '#p': byUpdate.partitionKey.name },
        ExpressionAttributeValues: { ':p': 'all#0' },
      }),
    );
    expect(indexed.Items).toEqual([]);
    gaveUp.abort();
    await Promise.allSettled(writes);
  } finally {
    client.destroy();
    await stack.stop();
  }
}, 60_000);

async function refusedRequestLogged(
  args: string[],
): Promise<{ logged: boolean; accessLogged: boolean; metricLogged: boolean }> {
  const stack = await start(['--dynamodb-port', '0', ...args]);
  try {
    const response = await fetch(`${stack.apiUrl}/store/orders/424242`, {
      method: 'DELETE',
      headers: { Authorization: `Bearer ${demoKey('free')}` },
    });
    expect(response.status).toBe(404);
  } finally {
    // The access log is written after the response; once the process has exited, all of it is in.
    await stack.stop();
  }
  return {
    logged: stack.output().includes('request refused'),
    accessLogged: stack.output().includes('"type":"access"'),
    // The 404 cancel's metric, as an EMF line.
    metricLogged: stack.output().includes(`"${BUSINESS_METRICS.cancels.name}":1`),
  };
}

test('--quiet silences the functions’ "request refused" lines, their metrics and the access log', async () => {
  expect(await refusedRequestLogged([])).toEqual({ logged: true, accessLogged: true, metricLogged: true });
  expect(await refusedRequestLogged(['--quiet'])).toEqual({ logged: false, accessLogged: false, metricLogged: false });
}, 120_000);

/** Listens on a free port of 127.0.0.1 and gives the server's address. */
async function listening(server: Server): Promise<{ endpoint: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A dynalite as a user runs it: tables take their time to become ACTIVE (the embedded one's take none). */
const stockDynalite = (createTableMs: number) => listening(dynalite({ createTableMs, updateTableMs: 500 }));

async function expectWorkingDemoKey(stack: Started): Promise<void> {
  const banner = stack.banner.join('\n');
  expect(banner).toContain('Seeded 7 demo orders');
  expect(banner).toContain(demoKey('free'));
  const response = await fetch(`${stack.apiUrl}/store/orders`, {
    headers: { Authorization: `Bearer ${demoKey('free')}` },
  });
  expect(response.status).toBe(200);
  expect(((await response.json()) as unknown[]).length).toBe(DEMO_ORDERS.length);
}

test('--dynamodb-endpoint on a stock dynalite waits for the tables to be ACTIVE, seeds, and prints a working key', async () => {
  const server = await stockDynalite(300);
  const stack = await startHere(['--quiet', '--dynamodb-endpoint', server.endpoint]);
  try {
    await expectWorkingDemoKey(stack);
  } finally {
    await stack.stop();
    await server.close();
  }
}, 120_000);

/** What a start needs to create its tables and wait for them; nothing that reads or writes items. */
const TABLE_ACTIONS: ReadonlySet<string> = new Set(['ListTables', 'CreateTable', 'DescribeTable', 'UpdateTimeToLive']);

/**
 * A gate in front of `endpoint` that passes the table actions through and holds every other request
 * unanswered: a start through it creates its tables but can never read or seed them, however late
 * it is stopped.
 */
function tablesOnlyGate(endpoint: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  return listening(
    createServer((req, res) => {
      const action = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? '';
      if (!TABLE_ACTIONS.has(action)) return;
      const upstream = request(
        `${endpoint}${req.url ?? '/'}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    }),
  );
}

test('the empty tables of an interrupted first start get the demo data on the next start', async () => {
  const server = await stockDynalite(300);
  const gate = await tablesOnlyGate(server.endpoint);
  const client = createDynamoClient({ endpoint: server.endpoint });
  try {
    // The first start is cut off from the store once its tables exist, still CREATING (on a loaded
    // machine perhaps ACTIVE by then): nothing seeded yet, since it reaches the store only through the gate.
    const first = startHere(['--quiet', '--dynamodb-endpoint', gate.endpoint]);
    for (;;) {
      const { TableNames = [] } = await client.send(new ListTablesCommand({}));
      if (TableNames.length === Object.keys(LOCAL_TABLES).length) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await gate.close();
    await expect(first).rejects.toThrow(/Cannot reach DynamoDB/);

    const second = await startHere(['--quiet', '--dynamodb-endpoint', server.endpoint]);
    try {
      await expectWorkingDemoKey(second);
    } finally {
      await second.stop();
    }
  } finally {
    client.destroy();
    await gate.close();
    await server.close();
  }
}, 120_000);

test('tables left empty by an earlier start are seeded; a store with the user’s keys is not', async () => {
  const server = await startEmbeddedDynamo({ port: 0 });
  const client = createDynamoClient({ endpoint: server.endpoint });
  try {
    await createTables(client, LOCAL_TABLES);
    const stack = await startHere(['--quiet', '--dynamodb-endpoint', server.endpoint]);
    try {
      await expectWorkingDemoKey(stack);
    } finally {
      await stack.stop();
    }
    // The user's own key and no order: not empty, so nothing is seeded among their data.
    const repos = repositories(server.endpoint);
    try {
      for (const order of DEMO_ORDERS)
        await client.send(new DeleteItemCommand({ TableName: LOCAL_TABLES.orders, Key: { id: { N: order.id } } }));
      for (const key of await repos.keys.list()) await repos.keys.revoke(key.id, new Date());
    } finally {
      repos.close();
    }
    const again = await startHere(['--quiet', '--dynamodb-endpoint', server.endpoint]);
    try {
      expect(again.banner.join('\n')).toContain('nothing seeded');
      expect(again.banner.join('\n')).not.toContain('sok_');
    } finally {
      await again.stop();
    }
  } finally {
    client.destroy();
    await server.close();
  }
}, 120_000);

test('--dynamodb-endpoint naming a server that is not DynamoDB is one line and exit 2', async () => {
  const text = await listening(
    createServer((_, res) => {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('nope');
    }),
  );
  // The local API's own port, whose 404 is JSON with a "code": the SDK took it for an error of DynamoDB's.
  const api = await startHere(['--dynamodb-port', '0', '--quiet', '--no-demo']);
  try {
    const apiOrigin = new URL(api.apiUrl).origin;
    const [plain, ownApi] = await Promise.all([
      startMistake(['--dynamodb-endpoint', text.endpoint]),
      startMistake(['--dynamodb-endpoint', apiOrigin]),
    ]);
    const notDynamo = (endpoint: string) => ({
      line:
        `npm start: The server at ${endpoint} (--dynamodb-endpoint) does not answer like DynamoDB (HTTP 404 to ListTables): ` +
        'give the address of DynamoDB Local or a dynalite',
      code: EXIT_USAGE,
    });
    expect(plain).toEqual(notDynamo(text.endpoint));
    expect(ownApi).toEqual(notDynamo(apiOrigin));
  } finally {
    await api.stop();
    await text.close();
  }
}, 120_000);

const { PINNED_MAJOR, pinnedNodeWarning } = createRequire(join(root, 'package.json'))('./scripts/check-node.cjs') as {
  PINNED_MAJOR: string;
  pinnedNodeWarning(version?: string, execPath?: string): string | undefined;
};

/** The machine's own node binaries on PATH (not the pinned one in node_modules), with their versions. */
function machineNodes(): { path: string; version: string }[] {
  const found = new Map<string, string>();
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = join(dir, 'node');
    if (dir === '' || dir.includes('node_modules') || !existsSync(candidate)) continue;
    const real = realpathSync(candidate);
    if (real === realpathSync(process.execPath) || found.has(real)) continue;
    found.set(real, execFileSync(real, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, ''));
  }
  return [...found].map(([path, version]) => ({ path, version }));
}

test('npm start on a Node.js other than the pinned one warns in one line how to fix it; on the pinned one, not', async () => {
  // What `npm ci --ignore-scripts` leads to: the machine's Node 20 instead of the pinned 22.
  expect(pinnedNodeWarning('20.20.2', '/usr/bin/node')).toBe(
    `Running on Node.js v20.20.2 (/usr/bin/node), not the pinned Node.js ${PINNED_MAJOR} ` +
      '(package.json\'s "node" devDependency): run npm rebuild node to fetch it (an install with --ignore-scripts skips that)',
  );
  expect(pinnedNodeWarning(`${PINNED_MAJOR}.0.1`)).toBeUndefined();

  const pinned = await runToExit(['--help']);
  expect(pinned).toEqual({ code: 0, stdout: `${START_USAGE}\n`, stderr: '' });
  // The real entry on each other Node.js this machine has (this one has its Node 20 in /usr/bin).
  const others = machineNodes().filter((node) => !node.version.startsWith(`${PINNED_MAJOR}.`));
  for (const { path, version } of others) {
    const other = await runToExit(['--help'], userEnv(), path);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('Usage: npm start');
    expect(other.stderr.trimEnd().split('\n')).toEqual([`npm start: warning: ${pinnedNodeWarning(version, path)}`]);
  }
}, 120_000);

/** Whether something accepts connections at the URL's host and port. */
const answers = (url: string) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(Number(new URL(url).port), new URL(url).hostname);
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });

describe('stopping the stack', () => {
  let states: string;
  beforeEach(async () => {
    states = await mkdtemp(join(dir, 'stacks-'));
  });
  /** A user's environment, with the stacks' state files in a folder of this test's own. */
  const env = () => userEnv({ LOCAL_STACK_STATE_DIR: states });
  const recorded = async () => (await readdir(states)).filter((name) => name.endsWith('.json'));
  const npmStop = () =>
    new Promise<Exited>((resolve) =>
      execFile('npm', ['run', '--silent', 'stop'], { cwd: root, env: env() }, (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      ),
    );

  test.each(['SIGTERM', 'SIGKILL'] as const)(
    'npm start’s npm killed with %s: the stack exits, its ports closed and its state file gone',
    async (signal) => {
      const stack = await start(['--dynamodb-port', '0', '--no-demo', '--quiet'], env(), 'npm');
      expect(await recorded()).toEqual([`${new URL(stack.apiUrl).port}.json`]);
      // The stack writes to npm's stdout, which it holds open until it exits.
      const exited = new Promise((resolve) => stack.child?.stdout?.once('close', resolve));
      // npm passes SIGTERM on; SIGKILL it cannot: the stack sees its parent gone.
      stack.child?.kill(signal);
      await exited;
      expect(await Promise.all([answers(stack.apiUrl), answers(stack.dynamoEndpoint)])).toEqual([false, false]);
      expect(await recorded()).toEqual([]);
    },
    120_000,
  );

  test('npm stop stops a running stack and returns once its ports are closed', async () => {
    const stack = await start(['--dynamodb-port', '0', '--no-demo', '--quiet'], env());
    const record = JSON.parse(await readFile(join(states, (await recorded())[0] ?? ''), 'utf8')) as unknown;
    expect(record).toEqual({
      pid: stack.child?.pid,
      apiUrl: stack.apiUrl,
      endpoint: stack.dynamoEndpoint,
      tables: LOCAL_TABLES,
      // The emulated delivery queue, served over SQS's protocol on a loopback port of its own.
      webhookQueueUrl: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:\\d+${LOCAL_QUEUE_PATH}$`)),
    });
    const exitCode = new Promise((resolve) => stack.child?.once('exit', resolve));
    expect(await npmStop()).toEqual({
      code: 0,
      stdout: `Stopped the local stack at ${stack.apiUrl} (pid ${stack.child?.pid}).\n`,
      stderr: '',
    });
    expect(await Promise.all([answers(stack.apiUrl), answers(stack.dynamoEndpoint)])).toEqual([false, false]);
    // Stopped as Ctrl-C stops it.
    expect(await exitCode).toBe(0);
    expect(await recorded()).toEqual([]);
  }, 120_000);

  test('npm stop with no stack running says so in one line; a stale record is ignored, said and removed', async () => {
    expect(await npmStop()).toEqual({ code: 0, stdout: 'npm stop: no local stack is running\n', stderr: '' });
    // The record a stack killed with SIGKILL leaves: its process is gone.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const stale = {
      pid: dead,
      apiUrl: 'http://127.0.0.1:3999/v1',
      endpoint: 'http://127.0.0.1:8999',
      tables: LOCAL_TABLES,
    };
    await writeFile(join(states, '3999.json'), JSON.stringify(stale));
    expect(await npmStop()).toEqual({
      code: 0,
      stdout:
        `npm stop: Ignored the record of a local stack that is no longer running (pid ${dead}, ${stale.apiUrl}), and removed it\n` +
        'npm stop: no local stack is running\n',
      stderr: '',
    });
    expect(await recorded()).toEqual([]);
  }, 60_000);
});
