// @store-orders/client as another project gets it: `npm pack` builds the package (its prepack
// script), the tarball and its dependencies are installed offline into a scratch NodeNext project,
// the TypeScript compiler type-checks the example there against the package's own .d.ts files, and
// the pinned Node and the oldest the client's engines allow run the compiled example (plain
// JavaScript importing the package's JavaScript) against the local stack.

import { execFile, execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { BASE_PATH } from '../../lib/contract/routes';
import { inCi } from '../support/ci';
import { startLocalStack, type LocalStack } from '../support/local-stack';
import { findNode, oldestNodeMajor } from '../support/node-binaries';
import { ordersById } from '../support/orders-table';

const ROOT = process.cwd();
const CLIENT = join(ROOT, 'client');
const INT64_MAX = '9223372036854775807';
const PER_MINUTE = 6;

let workDir: string;
let consumer: string;
let packed: string[];
let stack: LocalStack | undefined;

/** npm with output captured; `--offline` wherever it could reach for the registry. */
const npm = async (cwd: string, ...args: string[]) =>
  (
    await promisify(execFile)('npm', args, {
      cwd,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    })
  ).stdout;

interface Packed {
  name: string;
  filename: string;
  files: { path: string }[];
}

function packJson(output: string): Packed[] {
  // npm prints the prepack script's lines first, then the JSON: the first line that opens an array.
  const start = output.search(/^\[/m);
  return JSON.parse(output.slice(Math.max(start, 0))) as Packed[];
}

const dependenciesOf = (dir: string): string[] =>
  Object.keys(
    (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> })
      .dependencies ?? {},
  );

/** The client's runtime dependencies, from its package.json: installed from the root node_modules. */
const DEPENDENCIES = dependenciesOf(CLIENT).sort();

/** Those and theirs, all of them from the root node_modules (so nothing is asked of a registry). */
const INSTALLED: string[] = [];
for (const todo = [...DEPENDENCIES]; todo.length > 0;) {
  const name = todo.pop() as string;
  if (INSTALLED.includes(name)) continue;
  INSTALLED.push(name);
  todo.push(...dependenciesOf(join(ROOT, 'node_modules', name)));
}
INSTALLED.sort();

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'client-package-'));
  // Slow (seconds), all of it before the stack opens any connection.
  const [client] = packJson(await npm(CLIENT, 'pack', '--json', '--pack-destination', workDir));
  if (!client) throw new Error('npm pack packed nothing');
  packed = client.files.map((file) => file.path).sort();

  consumer = join(workDir, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      // The dependencies from the root node_modules, which `--install-links` below packs and copies in
      // as `npm pack` would (a second npm to pack them cost seconds of CPU), with no registry.
      dependencies: {
        [client.name]: `file:../${client.filename}`,
        ...Object.fromEntries(INSTALLED.map((name) => [name, `file:${join(ROOT, 'node_modules', name)}`])),
      },
    }),
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022'],
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
        strict: true,
        noUncheckedIndexedAccess: true,
        // The package's declaration files are checked too, not taken on trust.
        skipLibCheck: false,
        outDir: 'out',
      },
      files: ['orders.ts', 'sync.ts'],
    }),
  );
  copyFileSync(join(CLIENT, 'examples/orders.ts'), join(consumer, 'orders.ts'));
  // The v2 sync loop is type-checked against the package too (it is not run: it polls).
  copyFileSync(join(CLIENT, 'examples/sync.ts'), join(consumer, 'sync.ts'));
  await npm(consumer, 'install', '--offline', '--install-links', '--no-audit', '--no-fund', '--ignore-scripts');
}, 180_000);

afterAll(async () => {
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test('the tarball holds the built JavaScript, its declarations, the README, the licence and nothing else', () => {
  expect(packed).toContain('package.json');
  expect(packed).toContain('README.md');
  expect(packed).toContain('LICENSE');
  expect(packed).toContain('dist/client/index.js');
  expect(packed).toContain('dist/client/index.d.ts');
  // What the client reads from lib/ is compiled in from the one source, not copied by hand.
  expect(packed).toContain('dist/lib/contract/errors.js');
  expect(packed.filter((path) => !/^dist\/.*\.(js|d\.ts)$/.test(path))).toEqual([
    'LICENSE',
    'README.md',
    'package.json',
  ]);
});

test("installed offline, it brings its package.json's dependencies (and theirs) and nothing more", () => {
  expect(DEPENDENCIES).toEqual(expect.arrayContaining(['@streamparser/json', 'lossless-json', 'standardwebhooks']));
  const installed = (folder: string) =>
    readdirSync(join(consumer, 'node_modules', folder)).filter((name) => !name.startsWith('.'));
  const names = installed('').flatMap((name) =>
    name.startsWith('@') ? installed(name).map((inner) => `${name}/${inner}`) : [name],
  );
  expect(names.sort()).toEqual(['@store-orders/client', ...INSTALLED].sort());
});

test('the example type-checks in a NodeNext project (module and moduleResolution NodeNext)', () => {
  // The compiler in this process, as `tsc -p` would run it on the consumer's tsconfig.json. With
  // skipLibCheck off, the diagnostics asked for are those of the consumer's own files: the example
  // and the package's declarations. @types/node's own are not the package's to check (and checking
  // them is most of a full tsc run's time).
  const config = ts.getParsedCommandLineOfConfigFile(
    join(consumer, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('no tsconfig.json');
  const program = ts.createProgram(config.fileNames, config.options);
  const own = program
    .getSourceFiles()
    .filter((file) => !relative(consumer, file.fileName).startsWith('..'))
    .filter((file) => !/node_modules\/(?!@store-orders\/)/.test(relative(consumer, file.fileName)));
  expect(own.map((file) => relative(consumer, file.fileName))).toEqual(
    expect.arrayContaining(['orders.ts', 'node_modules/@store-orders/client/dist/client/index.d.ts']),
  );
  const diagnostics = [
    ...config.errors,
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((file) => [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)]),
    // The example alone: emitting every file would check every file, @types/node's included.
    ...program.emit(program.getSourceFile(join(consumer, 'orders.ts'))).diagnostics,
  ];
  expect(
    ts.formatDiagnostics(diagnostics, {
      ...ts.sys,
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => consumer,
      getNewLine: () => '\n',
    }),
  ).toBe('');
  expect(readdirSync(join(consumer, 'out'))).toEqual(['orders.js']);
}, 120_000);

test("the sources themselves run under Node's type stripping, as they are", () => {
  const script = "const m = await import('./client/index.ts'); console.log(Object.keys(m).sort().join(' '))";
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(output.trim()).toBe(
    'DEFAULT_TIMEOUT_MS StoreOrdersApiError StoreOrdersClient applyChange applyDeparture applySync verifyWebhook',
  );
});

/** The local stack the example runs against, with three orders of its own: started once. */
let seeded: Promise<LocalStack> | undefined;
const exampleStack = () =>
  (seeded ??= (async () => {
    stack ??= await startLocalStack();
    await stack.app.orders.putMany([
      { id: INT64_MAX, petId: '9223372036854775806', quantity: 3, status: 'pending' },
      { id: '9007199254740993', status: 'pending' },
      { id: '7', status: 'shipped', complete: true },
    ]);
    return stack;
  })());

/** `node` runs the compiled example against the local stack: list, stream, cancel, 429. */
async function runsTheExample(node: string): Promise<void> {
  const local = await exampleStack();
  const orders = [...(await ordersById(local.tables)).values()];
  const pending = orders.filter((order) => order.status === 'pending').length;
  const { key } = await local.newKey('enterprise', { perMinute: PER_MINUTE, perDay: 1000 });
  // Asynchronous: the stack answers from this process while the example runs.
  const { stdout } = await promisify(execFile)(
    node,
    [join(consumer, 'out/orders.js'), '--cancel', INT64_MAX, '--provoke-429'],
    {
      cwd: consumer,
      env: { ...process.env, STORE_ORDERS_URL: `${local.baseUrl}${BASE_PATH}`, STORE_ORDERS_API_KEY: key },
      timeout: 60_000,
    },
  );
  expect(stdout.trim().split('\n')).toEqual([
    `listOrders: ${orders.length} orders, ${pending} pending`,
    `listOrdersStream: ${orders.length} orders`,
    `cancelOrder: ${INT64_MAX} is cancelled`,
    // Three of the minute's requests are spent above; the fourth over the limit is refused.
    expect.stringMatching(new RegExp(`^429 RATE_LIMITED after ${PER_MINUTE - 3 + 1} requests: retry after \\d+ s$`)),
  ]);
  expect((await local.app.orders.get(INT64_MAX))?.status).toBe('cancelled');
  expect((await local.app.orders.get('9007199254740993'))?.status).toBe('pending');
}

test(`the pinned Node ${process.versions.node.split('.')[0]} runs the compiled example against the local stack: list, stream, cancel, 429`, async () => {
  await runsTheExample(process.execPath);
}, 90_000);

// The oldest Node client/package.json's engines allow runs it too, so that range is one tested.
const OLDEST = oldestNodeMajor(join(CLIENT, 'package.json'));
const oldest = findNode(OLDEST);
const oldestTest = oldest.found || inCi ? test : test.skip;
if (!oldest.found && !inCi)
  process.stderr.write(`client-package.test.ts: the Node ${OLDEST} run did not run: ${oldest.reason}\n`);
oldestTest(
  `Node ${OLDEST}, the oldest the client's engines allow, runs it too${oldest.found ? ` (${oldest.version})` : ` [not run: ${oldest.reason}]`}`,
  async () => {
    if (!oldest.found) throw new Error(`CI needs Node ${OLDEST} for the client's engines: ${oldest.reason}`);
    await runsTheExample(oldest.path);
  },
  90_000,
);

test('without a key the example prints one line with the fix and exits 2', async () => {
  const env = { ...process.env };
  delete env.STORE_ORDERS_API_KEY;
  const failure = await promisify(execFile)(process.execPath, [join(consumer, 'out/orders.js')], { env }).then(
    () => undefined,
    (error: unknown) => error as { code?: number; stderr?: string },
  );
  expect(failure?.code).toBe(2);
  expect(failure?.stderr).toMatch(/^orders: an API key is needed: --key KEY or STORE_ORDERS_API_KEY[^\n]*\n$/);
});

test('a wrong option is one line too, with the usage', async () => {
  const failure = await promisify(execFile)(process.execPath, [join(consumer, 'out/orders.js'), '--nope']).then(
    () => undefined,
    (error: unknown) => error as { code?: number; stderr?: string },
  );
  expect(failure?.code).toBe(2);
  expect(failure?.stderr).toMatch(/^orders: Unknown option '--nope'.*\(usage: orders \[--url URL\][^\n]*\n$/);
});

/** An HTTP proxy on 127.0.0.1 that tunnels CONNECT requests and records each tunnel's target. */
async function tunnellingProxy(): Promise<{ url: string; tunnels: string[]; server: Server }> {
  const tunnels: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client, head) => {
    tunnels.push(req.url ?? '');
    const [host = '', port = ''] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels, server };
}

test('proxy variables: honoured under NODE_USE_ENV_PROXY=1 (NO_PROXY too), else one line and exit 1', async () => {
  stack ??= await startLocalStack();
  const { key } = await stack.newKey('free');
  const proxy = await tunnellingProxy();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STORE_ORDERS_URL: `${stack.baseUrl}${BASE_PATH}`,
    STORE_ORDERS_API_KEY: key,
  };
  for (const name of [
    'HTTPS_PROXY',
    'https_proxy',
    'HTTP_PROXY',
    'http_proxy',
    'NO_PROXY',
    'no_proxy',
    'NODE_USE_ENV_PROXY',
  ])
    delete env[name];
  const example = (extra: NodeJS.ProcessEnv) =>
    promisify(execFile)(process.execPath, [join(consumer, 'out/orders.js')], {
      cwd: consumer,
      env: { ...env, ...extra },
      timeout: 60_000,
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: unknown) => ({ code: -1, stdout: '', stderr: '', ...(error as object) }),
    );
  const orders = [...(await ordersById(stack.tables)).values()];
  const pending = orders.filter((order) => order.status === 'pending').length;
  const listed = [
    `listOrders: ${orders.length} orders, ${pending} pending`,
    `listOrdersStream: ${orders.length} orders`,
  ];
  try {
    const through = await example({ NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url });
    expect(through.stdout.trim().split('\n')).toEqual(listed);
    // Every connection to the API went through the proxy.
    expect(proxy.tunnels.length).toBeGreaterThan(0);
    expect(new Set(proxy.tunnels)).toEqual(new Set([new URL(stack.baseUrl).host]));

    proxy.tunnels.length = 0;
    const bypassed = await example({ NODE_USE_ENV_PROXY: '1', HTTP_PROXY: proxy.url, NO_PROXY: '127.0.0.1' });
    expect(bypassed.stdout.trim().split('\n')).toEqual(listed);
    expect(proxy.tunnels).toEqual([]);

    const ignored = await example({ HTTP_PROXY: proxy.url });
    expect({ code: ignored.code, stdout: ignored.stdout, tunnels: proxy.tunnels }).toEqual({
      code: 1,
      stdout: '',
      tunnels: [],
    });
    expect(ignored.stderr).toMatch(
      /^orders: HTTP_PROXY is set, but Node's fetch ignores proxy variables .*NODE_USE_ENV_PROXY=1.*\n$/,
    );
    expect(ignored.stderr.trim().split('\n')).toHaveLength(1);
  } finally {
    proxy.server.close();
  }
}, 60_000);
