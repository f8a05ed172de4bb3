import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TABLES } from '../../lib/contract/tables';
import { FUNCTIONS, type EntryId } from '../../lib/contract/deployment';
import {
  LAMBDA_TASK_ROOT,
  lambdaRuntimeCommand,
  lambdaRuntimeNodeFlags,
  NODE_FLAGS_WRAPPER,
} from '../../infra/runtime/lambda-node';
import { logicalId, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  // The shared synthesis bundles: identical bundles are built once per process.
  synthesised = synthesiseStages();
});

/** Dummy values: importing a handler module reads its configuration but makes no call. */
const LAMBDA_LIKE_ENV = {
  ...Object.fromEntries(Object.values(TABLES).map((t) => [t.envVar, `bundle-test-${t.envVar.toLowerCase()}`])),
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'bundle-test',
  AWS_SECRET_ACCESS_KEY: 'bundle-test',
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** The code of the imported function, as it is before the bundle loads in Lambda. */
const AWSLAMBDA_GLOBAL = `
    globalThis.awslambda ??= {
      streamifyResponse: (handler) => handler,
      HttpResponseStream: { from: (stream) => stream },
    };`;

const imported = new Map<string, Record<string, string>>();

/**
 * Imports the bundle in a fresh Node process, as the Lambda runtime does (ESM, outside jest's
 * module system), with the runtime's `awslambda` global for streamed handlers. Prints the type of
 * every export. Both stages deploy the same bundle file (one asset), so each file is imported once.
 */
function importInFreshNode(file: string): Record<string, string> {
  const known = imported.get(file);
  if (known) return known;
  const script = `${AWSLAMBDA_GLOBAL}
    const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(mod).map(([k, v]) => [k, typeof v]))));
  `;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...LAMBDA_LIKE_ENV },
    cwd: path.dirname(file),
    encoding: 'utf8',
    timeout: 20_000,
  });
  const exports = JSON.parse(out) as Record<string, string>;
  imported.set(file, exports);
  return exports;
}

/**
 * A function as the synthesised template deploys it: its asset directory, the bundle file and
 * export its Handler names, and its environment.
 */
function deployed(
  stageName: 'staging' | 'prod',
  entry: EntryId,
): { assetDir: string; file: string; exportName: string; environment: Record<string, string> } {
  const { template, stack } = stageNamed(synthesised, stageName);
  const props = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions[entry].function)]
    ?.Properties as {
    Handler: string;
    Code: { S3Key: string };
    Environment: { Variables: Record<string, string> };
  };
  const assetDir = path.join(synthesised.assemblyDir, `asset.${props.Code.S3Key.replace(/\.zip$/, '')}`);
  const dot = props.Handler.lastIndexOf('.');
  return {
    assetDir,
    file: path.join(assetDir, `${props.Handler.slice(0, dot)}.mjs`),
    exportName: props.Handler.slice(dot + 1),
    environment: props.Environment.Variables,
  };
}

describe.each(['staging', 'prod'] as const)('bundles of %s', (stageName) => {
  test.each(['authorizer', 'list-orders', 'cancel-order', 'get-pet', 'sync-watch'] as const)(
    '%s is a minified ESM bundle within its size budget, with a source map, exporting the handler the template names',
    (entry) => {
      const { file, exportName } = deployed(stageName, entry);

      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}.map`)).toBe(true);
      const code = readFileSync(file, 'utf8');
      expect(code.startsWith("import { createRequire as __storeOrdersCreateRequire } from 'node:module';")).toBe(true);
      // Bundled, not left for the runtime to provide.
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      // Minified: long lines (the few line breaks left are inside string literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(1_000);

      expect(importInFreshNode(file)).toMatchObject({ [exportName]: 'function' });
      // Within its size budget (lib/contract/deployment.ts): module loading is most of a cold start.
      expect(statSync(file).size).toBeLessThanOrEqual(FUNCTIONS[entry].bundleBudgetKib * 1024);
    },
  );
});

const sourcesOf = new Map<string, string[]>();

/** The source files a bundle was built from, as its source map names them (each map read once). */
function mapSources(file: string): string[] {
  let sources = sourcesOf.get(file);
  if (!sources) {
    sources = (JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] }).sources;
    sourcesOf.set(file, sources);
  }
  return sources;
}

/** Our own source files a bundle was built from (repository-relative, as the map names them). */
function ownSources(file: string): string[] {
  return mapSources(file).filter((source) => !source.split('/').includes('node_modules'));
}

test.each(['authorizer', 'list-orders', 'cancel-order'] as const)(
  "%s's source map names its sources from the project root, not from the synth output folder, so the bundle is the same wherever it is synthesised",
  (entry) => {
    const sources = mapSources(deployed('prod', entry).file);
    expect(sources).toContain(`functions/${entry}.ts`);
    for (const source of sources) {
      expect(path.isAbsolute(source)).toBe(false);
      expect(source.startsWith('../')).toBe(false);
    }
  },
);

test.each(['authorizer', 'list-orders', 'cancel-order'] as const)(
  'the pre-traffic hook of %s is a bundle that loads and exports the handler its template names',
  (entry) => {
    const { template, stack } = stageNamed(synthesised, 'prod');
    const props = template.findResources('AWS::Lambda::Function')[logicalId(stack.releases.hooks[entry].function)]
      ?.Properties as { Handler: string; Code: { S3Key: string } };
    const dot = props.Handler.lastIndexOf('.');
    const file = path.join(
      synthesised.assemblyDir,
      `asset.${props.Code.S3Key.replace(/\.zip$/, '')}`,
      `${props.Handler.slice(0, dot)}.mjs`,
    );
    expect(importInFreshNode(file)).toMatchObject({ [props.Handler.slice(dot + 1)]: 'function' });
    expect(mapSources(file)).toContain('infra/release-hook/handler.ts');
  },
);

test.each(['authorizer', 'list-orders', 'cancel-order'] as const)(
  '%s is built from functions/ and lib/ only: no CDK declarations, tools, bench figures or tests',
  (entry) => {
    const sources = ownSources(deployed('prod', entry).file);
    expect(sources).toContain(`functions/${entry}.ts`);
    expect(sources.filter((source) => !/^(functions|lib)\//.test(source))).toEqual([]);
  },
);

describe.each(['staging', 'prod'] as const)('the node-flags wrapper in the bundles of %s', (stageName) => {
  test('list-orders carries the wrapper its environment names, executable, and Lambda can start the bundle through it', () => {
    const { assetDir, file, environment } = deployed(stageName, 'list-orders');
    const wrapperPath = environment.AWS_LAMBDA_EXEC_WRAPPER ?? '';
    expect(wrapperPath.startsWith(`${LAMBDA_TASK_ROOT}/`)).toBe(true);
    const wrapper = path.join(assetDir, path.relative(LAMBDA_TASK_ROOT, wrapperPath));
    expect(readFileSync(wrapper, 'utf8')).toBe(readFileSync(NODE_FLAGS_WRAPPER.source, 'utf8'));
    expect(statSync(wrapper).mode & 0o111).toBe(0o111);

    // As Lambda starts it: the wrapper gets the runtime's command, whose entry script loads the handler.
    const runtimeEntry = path.join(mkdtempSync(path.join(os.tmpdir(), 'runtime-')), 'index.mjs');
    const bundle = pathToFileURL(file).href;
    writeFileSync(
      runtimeEntry,
      `${AWSLAMBDA_GLOBAL}\nconst mod = await import(${JSON.stringify(bundle)});\nprocess.stdout.write(JSON.stringify({ handler: typeof mod.handler, execArgv: process.execArgv }));\n`,
    );
    const memoryMb = FUNCTIONS['list-orders'].memoryMb;
    const runtimeFlags = lambdaRuntimeNodeFlags(memoryMb);
    const [node, ...args] = lambdaRuntimeCommand(memoryMb, { node: process.execPath, entry: runtimeEntry });
    const out = execFileSync(wrapper, [node as string, ...args], {
      env: { PATH: process.env.PATH, ...LAMBDA_LIKE_ENV, ...environment },
      cwd: assetDir,
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(out)).toEqual({
      handler: 'function',
      execArgv: [...(environment.EXTRA_NODE_FLAGS ?? '').split(' '), ...runtimeFlags],
    });
    expect(environment.EXTRA_NODE_FLAGS).toBe(FUNCTIONS['list-orders'].nodeFlags?.join(' '));
  });

  test.each(['authorizer', 'cancel-order'] as const)(
    '%s declares no node flags, so it has neither the wrapper nor its variables',
    (entry) => {
      const { assetDir, environment } = deployed(stageName, entry);
      expect(existsSync(path.join(assetDir, NODE_FLAGS_WRAPPER.fileName))).toBe(false);
      expect(environment.AWS_LAMBDA_EXEC_WRAPPER).toBeUndefined();
      expect(environment[NODE_FLAGS_WRAPPER.flagsVar]).toBeUndefined();
    },
  );
});
