// A client generated from openapi.json, as a consumer would build it: openapi-typescript's types
// and openapi-fetch. Out of the box it loses digits of int64 ids; the recipe in client/examples
// (types generated with ids as strings, parseAs: 'text' and a lossless parser) type-checks against
// the generated types and keeps every digit against the local stack. openapi-typescript runs in a
// child process, as a consumer's build step would (it is ESM at heart, which jest does not load).

import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import ts from 'typescript';
import { BASE_PATH } from '../../lib/contract/routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';

/** What client/examples/openapi-fetch.ts exports (its own types need the generated file). */
interface Recipe {
  storeOrdersClient(baseUrl: string, apiKey: string): unknown;
  listOrders(api: unknown): Promise<{ id?: string; petId?: string; quantity?: number; status: string }[]>;
  cancelOrder(api: unknown, orderId: string): Promise<void>;
}

const INT64_MAX = '9223372036854775807';
const ROOT = process.cwd();
const OPENAPI = join(ROOT, 'openapi.json');
const EXAMPLES = join(ROOT, 'client/examples');
let stack: LocalStack;
let workDir: string;
let key: string;

// Generating and type-checking take seconds (measured up to 30 s on a loaded machine): done in a
// hook of their own, with a generous timeout, before any connection is open, since the type check
// blocks the event loop, which lets the server's keep-alive timer close a pooled socket just as the
// client reuses it. The two generations are child processes of their own: they run side by side.
beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'generated-client-'));
  const [idsAsStringsProject] = await Promise.all([idsAsStrings(), asIs()]);
  typeErrors(idsAsStringsProject.recipe);
}, 180_000);
beforeAll(async () => {
  stack = await startLocalStack();
  await stack.app.orders.putMany([
    { id: INT64_MAX, petId: '9223372036854775806', quantity: 3, status: 'pending' },
    { id: '9007199254740992', status: 'pending' },
    { id: '9007199254740993', status: 'pending' },
  ]);
  ({ key } = await stack.newKey('enterprise', { perMinute: 1000, perDay: 100_000 }));
}, 60_000);
afterAll(async () => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
  await stack?.close();
});

const node = (...args: string[]) => promisify(execFile)(process.execPath, args, { cwd: ROOT });

interface Project {
  types: string;
  recipe: string;
}
const projects = new Map<string, Promise<Project>>();
const RECIPE = 'openapi-fetch.ts';
const AS_IS = 'as-is';
const IDS_AS_STRINGS = 'ids-as-strings';

/** A directory with the generated types and the recipe beside them, as a consumer's project has. */
function consumerProject(name: string, generate: (typesFile: string) => Promise<unknown>): Promise<Project> {
  let project = projects.get(name);
  if (!project) {
    const dir = join(workDir, name);
    mkdirSync(dir);
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const typesFile = join(dir, 'store-orders-api.d.ts');
    copyFileSync(join(EXAMPLES, RECIPE), join(dir, RECIPE));
    project = generate(typesFile).then(() => ({ types: readFileSync(typesFile, 'utf8'), recipe: join(dir, RECIPE) }));
    projects.set(name, project);
  }
  return project;
}

/** openapi-typescript's own command line, without options. */
const asIs = () =>
  consumerProject(AS_IS, (out) => node(join(ROOT, 'node_modules/openapi-typescript/bin/cli.js'), OPENAPI, '-o', out));
/** The README's generation step: int64 (`id`, `petId`, `orderId`) typed as string. */
const idsAsStrings = () =>
  consumerProject(IDS_AS_STRINGS, (out) => node(join(EXAMPLES, 'generate-types.mjs'), OPENAPI, out));

test('generated as is, the types say number for id, petId and orderId, and JSON parsing loses digits', async () => {
  const { types } = await asIs();
  expect(types).toMatch(/\bid\?: number;/);
  expect(types).toMatch(/\bpetId\?: number;/);
  expect(types).toMatch(/\borderId: number;/);
  // What such a client gets at run time: the double nearest to int64 max, not int64 max.
  const api = createClient({ baseUrl: `${stack.baseUrl}${BASE_PATH}`, headers: { Authorization: `Bearer ${key}` } });
  // Untyped here (the as-is types exist only in the consumer's directory); the parsing is the point.
  const { data } = await api.GET('/store/orders' as never);
  const ids = (data as unknown as { id: number }[]).map((order) => order.id);
  // eslint-disable-next-line no-loss-of-precision -- the lost digits are what this test is about
  expect(ids).toContain(9223372036854775807);
  expect(ids.map(String)).not.toContain(INT64_MAX);
  expect(ids.map(String)).toContain('9223372036854776000');
  // ...and 2^53 + 1 has become 2^53: two orders, one id.
  expect(ids.filter((id) => id === 9007199254740992)).toHaveLength(2);
});

test('generated with ids as strings, the recipe type-checks and keeps every digit against the local stack', async () => {
  const { types, recipe: recipePath } = await idsAsStrings();
  expect(types).toMatch(/\bid\?: string;/);
  expect(types).toMatch(/\bpetId\?: string;/);
  expect(types).toMatch(/\borderId: string;/);
  expect(types).toMatch(/\bquantity\?: number;/);
  expect(typeErrors(recipePath)).toEqual([]);

  // The same file that was type-checked, run: listOrders and cancelOrder by string id.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- jest's transform loads a .ts path given at run time
  const recipe = require(recipePath) as Recipe;
  const api = recipe.storeOrdersClient(`${stack.baseUrl}${BASE_PATH}`, key);
  const orders = await recipe.listOrders(api);
  expect(orders).toContainEqual({ id: INT64_MAX, petId: '9223372036854775806', quantity: 3, status: 'pending' });
  expect(orders.map((order) => order.id).sort()).toEqual(['9007199254740992', '9007199254740993', INT64_MAX]);

  await recipe.cancelOrder(api, '9007199254740993');
  await recipe.cancelOrder(api, INT64_MAX);
  const status = async (id: string) => (await stack.app.orders.get(id))?.status;
  expect([await status('9007199254740992'), await status('9007199254740993'), await status(INT64_MAX)]).toEqual([
    'pending',
    'cancelled',
    'cancelled',
  ]);
  await expect(recipe.cancelOrder(api, '424242')).rejects.toThrow('HTTP 404 ORDER_NOT_FOUND');
});

test('the recipe does not type-check against the types generated as is (ids are numbers there)', async () => {
  const { recipe } = await asIs();
  expect(typeErrors(recipe).join('\n')).toMatch(/'string' is not assignable to type 'number'/);
});

/**
 * Both recipes in one program (the standard library is loaded once), with the project's
 * strictness; the errors of each file, by file.
 */
let checked: Map<string, string[]> | undefined;
function typeErrors(file: string): string[] {
  if (!checked) {
    // Both generated by the first beforeAll.
    const files = [IDS_AS_STRINGS, AS_IS].map((name) => join(workDir, name, RECIPE));
    const program = ts.createProgram(files, {
      strict: true,
      noUncheckedIndexedAccess: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
      noEmit: true,
    });
    checked = new Map(files.map((f) => [f, []]));
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const name = d.file?.fileName ?? '';
      const bucket = [...checked.keys()].find((f) => name.startsWith(join(f, '..'))) ?? files[0]!;
      checked.get(bucket)?.push(`${name}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    }
  }
  return checked.get(file) ?? [`${file} was not checked`];
}
