// Dredd, a contract tester, run as it comes (no hooks) against the OpenAPI document as the local
// stack serves it. Without an example for `orderId` it could not run at all ("Required URI
// parameter 'orderId' has no example"). It compiles one transaction per documented answer of
// every operation, and the one it can check end to end without hooks, a cancel's 204, passes.
// Not run through it: the listing's 200, because Dredd 14's OpenAPI 3 support ignores `required:
// false` on a header (it would demand Content-Encoding, which only a compressed listing carries)
// and checks a body against its example rather than its schema (`allOf` is unsupported there).
// Every listing the black-box tests receive is checked against the document itself (ajv) instead.
import { EventEmitter } from 'node:events';
import Dredd from 'dredd';
import reporterOutput from 'dredd/build/reporters/reporterOutputLogger';
import { BASE_PATH } from '../../lib/contract/routes';
import { parseOrderId } from '../../lib/core/order-id';
import { docsRoutes, OPENAPI_PATH } from '../../tools/local/docs-routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';

interface DreddTest {
  status: string;
  title: string;
  message: string;
  origin: { resourceName: string; actionName: string; exampleName: string };
  request: { method: string; uri: string };
}

let stack: LocalStack;
/** Dredd's plan for the served document (a dry run: nothing sent). */
let planned: DreddTest[];

beforeAll(async () => {
  // Dredd's reporter prints a line per transaction, which jest would show among its own.
  reporterOutput.transports.console.silent = true;
  stack = await startLocalStack({ publicRoutes: docsRoutes({ server: () => stack.app.server }) });
  planned = await dredd({ dryRun: true });
});
afterAll(() => stack.close());

/** Runs Dredd against the served document; the tests it reports, by event. */
async function dredd(options: { dryRun: boolean; only?: string[]; key?: string }): Promise<DreddTest[]> {
  const emitter = new EventEmitter();
  const tests: DreddTest[] = [];
  for (const event of ['test pass', 'test fail', 'test skip', 'test error'])
    emitter.on(event, (test: DreddTest) => tests.push(test));
  const api = `${stack.baseUrl}${BASE_PATH}`;
  const stats = await new Promise((resolve, reject) =>
    new Dredd({
      endpoint: api,
      path: [`${api}${OPENAPI_PATH}`],
      'dry-run': options.dryRun,
      ...(options.only ? { only: options.only } : {}),
      ...(options.key ? { header: [`Authorization: Bearer ${options.key}`] } : {}),
      loglevel: 'error',
      reporter: [],
      color: false,
      emitter,
    }).run((error, result) => (error ? reject(error) : resolve(result))),
  );
  expect(stats).toMatchObject({ errors: 0 });
  return tests;
}

/** Dredd's name of a transaction, as `only` takes it. */
const nameOf = (test: DreddTest) =>
  `${test.origin.resourceName} > ${test.origin.actionName} > ${test.origin.exampleName}`;

/** Every documented answer of every operation, as Dredd titles its transactions. */
function documentedAnswers(document: Record<string, unknown>): string[] {
  const paths = document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, operation]) =>
      Object.keys(operation.responses).map((status) => `${method.toUpperCase()} (${status}) ${path}`),
    ),
  );
}

test('Dredd compiles the served document: one transaction per documented answer, the orderId example the API accepts', async () => {
  const tests = planned;
  const served = (await (await fetch(`${stack.baseUrl}${BASE_PATH}${OPENAPI_PATH}`)).json()) as Record<string, unknown>;
  const titles = tests.map((test) => test.title.replace(/\/store\/orders\/[^/]+$/, '/store/orders/{orderId}'));
  expect(titles.sort()).toEqual(documentedAnswers(served).sort());
  expect(tests.every((test) => test.status === 'skip')).toBe(true);
  for (const test of tests.filter((t) => t.request.method === 'DELETE')) {
    const id = test.request.uri.split('/').at(-1) ?? '';
    expect(() => parseOrderId(id)).not.toThrow();
  }
});

test("Dredd's cancel against the stack: 204 with the documented headers passes", async () => {
  const cancel = planned.find((test) => test.request.method === 'DELETE' && test.title.startsWith('DELETE (204)'));
  if (!cancel) throw new Error('Dredd planned no 204 cancel');
  // The order the document's example names, pending, so the cancel is the documented success.
  await stack.app.orders.putMany([{ id: cancel.request.uri.split('/').at(-1) ?? '', status: 'pending' }]);
  const { key } = await stack.newKey('free');
  const ran = await dredd({ dryRun: false, only: [nameOf(cancel)], key });
  expect(ran.filter((test) => test.status !== 'skip').map((test) => [test.title, test.status, test.message])).toEqual([
    [cancel.title, 'pass', ''],
  ]);
});
