// The compiler refuses a route without a handler and a v2 filter without an index read. Each change
// is made to the real sources as a developer would make it (in memory: no file on disk changes),
// compiled with the repository's compiler options, and the refusal expected where it belongs; the
// same files unchanged compile, so each check can fail. Here rather than in test/unit: a program
// over the service's sources takes seconds to check, and the unit layer has 10 s in all.
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.join(__dirname, '..', '..');
const inRepo = (file: string) => path.join(ROOT, file);

const config = ts.getParsedCommandLineOfConfigFile(
  inRepo('tsconfig.json'),
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  },
);
if (!config) throw new Error('tsconfig.json cannot be read');
const OPTIONS = config.options;

/** A change to one file: `anchor` (found exactly once, or the test stops) becomes `replacement`. */
interface Edit {
  file: string;
  anchor: string;
  replacement: string;
}

/** `text` inserted before `anchor`. */
const before = (file: string, anchor: string, text: string): Edit => ({ file, anchor, replacement: text + anchor });

/** The files' sources with the edits made. */
function edited(edits: readonly Edit[]): Map<string, string> {
  const sources = new Map<string, string>();
  for (const { file, anchor, replacement } of edits) {
    const source = sources.get(file) ?? ts.sys.readFile(inRepo(file)) ?? '';
    const at = source.indexOf(anchor);
    if (at < 0 || source.indexOf(anchor, at + 1) >= 0) throw new Error(`${file} does not hold its anchor exactly once`);
    sources.set(file, source.slice(0, at) + replacement + source.slice(at + anchor.length));
  }
  return new Map([...sources].map(([file, source]) => [path.normalize(inRepo(file)), source]));
}

// Source files parsed once for every program (the edited ones excepted): the checks share them.
const parsed = new Map<string, ts.SourceFile>();
let previous: ts.Program | undefined;

/**
 * The errors the compiler reports in `checked` with the edits made, each as `<file>: TS<code>
 * <message>`. Only those files are checked (and what they need of the files they import).
 */
function errorsIn(checked: readonly string[], edits: readonly Edit[] = []): string[] {
  const sources = edited(edits);
  const host = ts.createCompilerHost(OPTIONS, true);
  const { getSourceFile, readFile, fileExists } = host;
  host.readFile = (file) => sources.get(path.normalize(file)) ?? readFile.call(host, file);
  host.fileExists = (file) => sources.has(path.normalize(file)) || fileExists.call(host, file);
  host.getSourceFile = (file, language, ...rest) => {
    const source = sources.get(path.normalize(file));
    if (source !== undefined) return ts.createSourceFile(file, source, language, true);
    const known = parsed.get(file) ?? getSourceFile.call(host, file, language, ...rest);
    if (known) parsed.set(file, known);
    return known;
  };
  const rootNames = checked.map(inRepo);
  const program = ts.createProgram({
    rootNames,
    options: OPTIONS,
    host,
    ...(previous ? { oldProgram: previous } : {}),
  });
  previous = program;
  return rootNames.flatMap((file) => {
    const sourceFile = program.getSourceFile(file);
    if (!sourceFile) throw new Error(`${file} is not in the program`);
    return [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)].map(
      (d) => `${path.relative(ROOT, file)}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
    );
  });
}

/** Where a route needs its handler and its contract. */
const ROUTE_TABLES = [
  'lib/contract/operations.ts',
  'lib/contract/webhook-operations.ts',
  'lib/edge/webhooks-handler.ts',
  'lib/root/service.ts',
  'tools/local/app.ts',
];

/** Where a filter is declared, and read by the parser, the cursor, the document and the store. */
const FILTER_READERS = [
  'lib/contract/sync-filters.ts',
  'lib/core/sync/query.ts',
  'lib/core/sync/cursor.ts',
  'lib/contract/sync-operation.ts',
  'lib/stores/order-pages.ts',
];

/** TS2741, the refusal of an object that lacks a property its type requires; `type` a pattern of that type. */
const missing = (file: string, property: string, type: string) =>
  expect.stringMatching(
    new RegExp(`^${file}: TS2741 Property '${property}' is missing in type '.*' but required in type '${type}'\\.$`),
  );

/** A table keyed by operation (the compiler writes OperationId out): its keys include `operation`. */
const tableOf = (operation: string, value: string) => `Record<[^,]*"${operation}"[^,]*, ${value}>`;

test('the sources as they are compile (the checks below can fail)', () => {
  expect(errorsIn([...ROUTE_TABLES, ...FILTER_READERS])).toEqual([]);
});

describe('a route declared without a handler is refused', () => {
  test('a v1 route: the composition root has no handler for it (nor a contract)', () => {
    const route = `  {
    operationId: 'countOrders',
    method: 'GET',
    path: '/store/order-count',
    function: 'list-orders',
    tag: 'orders',
    summary: 'Count the orders',
    streaming: false,
    stability: 'experimental',
  },
`;
    const errors = errorsIn(ROUTE_TABLES, [
      before('lib/contract/routes.ts', "  {\n    operationId: 'cancelOrder',", route),
    ]);
    expect(errors).toEqual(
      expect.arrayContaining([
        missing('lib/root/service.ts', 'countOrders', tableOf('countOrders', 'RouteHandler')),
        missing('lib/contract/operations.ts', 'countOrders', tableOf('countOrders', 'OperationContract')),
      ]),
    );
  });

  test("a webhook endpoint route: the function's dispatch has no handler for it (nor a work-call count or a contract)", () => {
    const route = "  webhookRoute('testWebhookEndpoint', 'POST', '/{endpointId}/test', 'Send a test event'),\n";
    const errors = errorsIn(ROUTE_TABLES, [
      before('lib/contract/routes.ts', "  webhookRoute('createWebhookEndpoint',", route),
    ]);
    const handler = '\\(event: APIGatewayProxyEvent, context: Context\\) => Promise<.*>';
    expect(errors).toEqual(
      expect.arrayContaining([
        missing('lib/edge/webhooks-handler.ts', 'testWebhookEndpoint', tableOf('testWebhookEndpoint', handler)),
        missing('lib/edge/webhooks-handler.ts', 'testWebhookEndpoint', tableOf('testWebhookEndpoint', 'number')),
        missing(
          'lib/contract/webhook-operations.ts',
          'testWebhookEndpoint',
          tableOf('testWebhookEndpoint', 'OperationContract'),
        ),
      ]),
    );
  });
});

describe('a v2 filter without an index read is refused', () => {
  /** `petId` added to the parameters and the filters of lib/contract/sync.ts. */
  const NEW_FILTER = [
    before('lib/contract/sync.ts', "  status: 'status',\n", "  petId: 'petId',\n"),
    before('lib/contract/sync.ts', 'SYNC_PARAMETERS.status, SYNC_PARAMETERS.updatedSince]', 'SYNC_PARAMETERS.petId, '),
  ];

  /** A declaration of `petId` with its parameter, its parse and its cursor check, and `read` as given. */
  const declared = (read: string) =>
    before(
      'lib/contract/sync-filters.ts',
      '  status: {\n    parameter:',
      `  petId: {
    parameter: { description: 'Only orders of this pet.', schema: { type: 'integer', format: 'int64' } },
    parse: (text) => ({ value: text }),
    holds: (value): value is string => typeof value === 'string',
${read}  },
`,
    );

  test('declared with its parameter, parse and cursor check but no read: refused where it is declared', () => {
    expect(errorsIn(FILTER_READERS, [...NEW_FILTER, declared('')])).toEqual([
      missing('lib/contract/sync-filters.ts', 'read', 'SyncFilterDeclaration<"petId">'),
    ]);
  });

  test('a read that applies nothing is refused too', () => {
    expect(errorsIn(FILTER_READERS, [...NEW_FILTER, declared('    read: () => ({}),\n')])).toEqual([
      expect.stringMatching(
        /^lib\/contract\/sync-filters\.ts: TS2322 Type '\{\}' is not assignable to type 'IndexReadPart'/,
      ),
    ]);
  });

  test('added to the filters without a declaration: refused where the filters are declared', () => {
    expect(errorsIn(FILTER_READERS, NEW_FILTER)).toEqual([
      missing('lib/contract/sync-filters.ts', 'petId', '\\{ petId: SyncFilterDeclaration<"petId">; .*\\}'),
    ]);
  });
});
