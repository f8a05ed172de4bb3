// @store-orders/client as another project gets it: `npm pack` builds the package (its prepack
// script), the tarball and lossless-json's are installed offline into a scratch NodeNext project,
// tsc type-checks the example there against the package's own .d.ts files, and Node 22 runs the
// compiled example (plain JavaScript importing the package's JavaScript) against the local stack.

import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BASE_PATH } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';

const ROOT = process.cwd();
const CLIENT = join(ROOT, 'client');
const INT64_MAX = '9223372036854775807';
const PER_MINUTE = 6;

let workDir: string;
let consumer: string;
let packed: string[];
let stack: LocalStack | undefined;

/** npm with output captured; `--offline` wherever it could reach for the registry. */
const npm = (cwd: string, ...args: string[]) =>
  execFileSync('npm', args, {
    cwd,
    stdio: 'pipe',
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });

function packJson(output: string): { filename: string; files: { path: string }[] } {
  // npm prints the prepack script's lines first, then the JSON: the first line that opens an array.
  const start = output.search(/^\[/m);
  const [entry] = JSON.parse(output.slice(Math.max(start, 0))) as { filename: string; files: { path: string }[] }[];
  if (!entry) throw new Error(`npm pack said nothing: ${output}`);
  return entry;
}

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), 'client-package-'));
  // Synchronous and slow (seconds): all of it before the stack opens any connection.
  const client = packJson(npm(CLIENT, 'pack', '--json', '--pack-destination', workDir));
  packed = client.files.map((file) => file.path).sort();
  const losslessJson = packJson(
    npm(ROOT, 'pack', './node_modules/lossless-json', '--ignore-scripts', '--json', '--pack-destination', workDir),
  );

  consumer = join(workDir, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({
      name: 'consumer',
      private: true,
      type: 'module',
      dependencies: {
        '@store-orders/client': `file:../${client.filename}`,
        'lossless-json': `file:../${losslessJson.filename}`,
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
      files: ['orders.ts'],
    }),
  );
  copyFileSync(join(CLIENT, 'examples/orders.ts'), join(consumer, 'orders.ts'));
  npm(consumer, 'install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts');
}, 180_000);

afterAll(async () => {
  await stack?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

test('the tarball holds the built JavaScript, its declarations, the README and nothing else', () => {
  expect(packed).toContain('package.json');
  expect(packed).toContain('README.md');
  expect(packed).toContain('dist/client/index.js');
  expect(packed).toContain('dist/client/index.d.ts');
  // What the client reads from lib/ is compiled in from the one source, not copied by hand.
  expect(packed).toContain('dist/lib/contract/errors.js');
  expect(packed.filter((path) => !/^dist\/.*\.(js|d\.ts)$/.test(path))).toEqual(['README.md', 'package.json']);
});

test('installed offline, it brings lossless-json as its dependency and nothing more', () => {
  expect(
    readdirSync(join(consumer, 'node_modules'))
      .filter((name) => !name.startsWith('.'))
      .sort(),
  ).toEqual(['@store-orders', 'lossless-json']);
});

test('the example type-checks in a NodeNext project (module and moduleResolution NodeNext)', () => {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  const output = (() => {
    try {
      execFileSync(process.execPath, [tsc, '-p', consumer], { cwd: consumer, stdio: 'pipe', encoding: 'utf8' });
      return '';
    } catch (error) {
      return String((error as { stdout?: unknown }).stdout ?? error);
    }
  })();
  expect(output).toBe('');
  expect(readdirSync(join(consumer, 'out'))).toEqual(['orders.js']);
}, 120_000);

test('the sources themselves run under Node 22 type stripping, as they are', () => {
  const script = "const m = await import('./client/index.ts'); console.log(Object.keys(m).sort().join(' '))";
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  expect(output.trim()).toBe('DEFAULT_TIMEOUT_MS StoreOrdersApiError StoreOrdersClient');
});

test('Node 22 runs the compiled example against the local stack: list, stream, cancel, 429', async () => {
  expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(22);
  stack = await startLocalStack();
  await stack.app.orders.putMany([
    { id: INT64_MAX, petId: '9223372036854775806', quantity: 3, status: 'pending' },
    { id: '9007199254740993', status: 'pending' },
    { id: '7', status: 'shipped', complete: true },
  ]);
  const { key } = await stack.newKey('enterprise', { perMinute: PER_MINUTE, perDay: 1000 });
  // Asynchronous: the stack answers from this process while the example runs.
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [join(consumer, 'out/orders.js'), '--cancel', INT64_MAX, '--provoke-429'],
    {
      cwd: consumer,
      env: { ...process.env, STORE_ORDERS_URL: `${stack.baseUrl}${BASE_PATH}`, STORE_ORDERS_API_KEY: key },
      timeout: 60_000,
    },
  );
  expect(stdout.trim().split('\n')).toEqual([
    'listOrders: 3 orders, 2 pending',
    'listOrdersStream: 3 orders',
    `cancelOrder: ${INT64_MAX} is cancelled`,
    // Three of the minute's requests are spent above; the fourth over the limit is refused.
    expect.stringMatching(new RegExp(`^429 RATE_LIMITED after ${PER_MINUTE - 3 + 1} requests: retry after \\d+ s$`)),
  ]);
  expect((await stack.app.orders.get(INT64_MAX))?.status).toBe('cancelled');
  expect((await stack.app.orders.get('9007199254740993'))?.status).toBe('pending');
}, 90_000);

test('without a key the example prints one line with the fix and exits 2', async () => {
  const env = { ...process.env };
  delete env.STORE_ORDERS_API_KEY;
  const failure = await promisify(execFile)(process.execPath, [join(consumer, 'out/orders.js')], { env }).then(
    () => undefined,
    (error: unknown) => error as { code?: number; stderr?: string },
  );
  expect(failure?.code).toBe(2);
  expect(failure?.stderr).toMatch(/^orders: an API key is needed: --key KEY or STORE_ORDERS_API_KEY/);
});
