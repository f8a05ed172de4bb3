import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { TABLES } from '../../lib/aws/tables';
import { FUNCTIONS } from '../../infra/functions';
import { logicalId, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  // The one infrastructure test that bundles: identical bundles are built once per process.
  synthesised = synthesiseStages({ bundling: true });
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

/**
 * Imports the bundle in a fresh Node process, as the Lambda runtime does (ESM, outside jest's
 * module system), with the runtime's `awslambda` global for streamed handlers. Prints the type of
 * every export.
 */
function importInFreshNode(file: string): Record<string, string> {
  const script = `
    globalThis.awslambda ??= {
      streamifyResponse: (handler) => handler,
      HttpResponseStream: { from: (stream) => stream },
    };
    const mod = await import(${JSON.stringify(pathToFileURL(file).href)});
    process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(mod).map(([k, v]) => [k, typeof v]))));
  `;
  const out = execFileSync(process.execPath, ['--enable-source-maps', '--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH, ...LAMBDA_LIKE_ENV },
    cwd: path.dirname(file),
    encoding: 'utf8',
    timeout: 20_000,
  });
  return JSON.parse(out) as Record<string, string>;
}

describe.each(['staging', 'prod'] as const)('bundles of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test.each(['authorizer', 'list-orders', 'cancel-order'] as const)(
    '%s is a minified ESM bundle within its size budget, with a source map, exporting the handler the template names',
    (entry) => {
      const { template, stack } = stage();
      const props = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions[entry].function)]
        ?.Properties as { Handler: string; Code: { S3Key: string } };
      const assetDir = path.join(synthesised.assemblyDir, `asset.${props.Code.S3Key.replace(/\.zip$/, '')}`);
      const dot = props.Handler.lastIndexOf('.');
      const file = path.join(assetDir, `${props.Handler.slice(0, dot)}.mjs`);
      const exportName = props.Handler.slice(dot + 1);

      expect(existsSync(file)).toBe(true);
      expect(existsSync(`${file}.map`)).toBe(true);
      const code = readFileSync(file, 'utf8');
      expect(code.startsWith("import { createRequire as __storeOrdersCreateRequire } from 'node:module';")).toBe(true);
      // Bundled, not left for the runtime to provide.
      expect(code).not.toMatch(/from\s*["']@aws-sdk\//);
      // Minified: long lines (the few line breaks left are inside string literals).
      expect(code.length / code.split('\n').length).toBeGreaterThan(1_000);

      expect(importInFreshNode(file)).toMatchObject({ [exportName]: 'function' });
      // Within its size budget (infra/functions.ts): module loading is most of a cold start.
      expect(statSync(file).size).toBeLessThanOrEqual(FUNCTIONS[entry].bundleBudgetKib * 1024);
    },
  );
});
