// How each Lambda function is built: its entry file and the esbuild options. Its settings (memory,
// timeout, table access, bundle budget, node flags) are the deployment contract's, in
// lib/contract/deployment.ts. Free of aws-cdk-lib, so the bench bundles the functions with it too.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EntryId } from '../lib/contract/deployment';

// The CDK app and the bench run as ESM (tsx), the tests as CommonJS (jest): both ways of finding this file are needed.
const HERE = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..');

/** The entry file of a function, as the stack and the bench bundle it. */
export const functionEntry = (id: EntryId): string => path.join(REPO_ROOT, 'functions', `${id}.ts`);

/**
 * A bundled ESM file cannot `require`, yet some bundled CommonJS dependencies still call it; the
 * banner gives them one. The alias avoids clashing with a createRequire import in the bundle.
 */
const REQUIRE_SHIM =
  "import { createRequire as __storeOrdersCreateRequire } from 'node:module';" +
  'const require = __storeOrdersCreateRequire(import.meta.url);';

/**
 * The Node.js major version every function runs on (Lambda's `nodejs24.x`, hooks included), and the
 * one the local `node` devDependency pins (package.json; the infra tests hold the two together).
 * Node.js 22 leaves support in April 2027; 24 is supported on Lambda since November 2025.
 */
export const LAMBDA_NODE_MAJOR = 24;

/** Lambda's name for that runtime. */
export const LAMBDA_RUNTIME_NAME = `nodejs${LAMBDA_NODE_MAJOR}.x`;

/**
 * How every function is bundled (esbuild options as NodejsFunction passes them). The AWS SDK is
 * bundled rather than taken from the runtime, so the deployed code runs the SDK version the tests ran.
 */
export const BUNDLING = {
  target: `node${LAMBDA_NODE_MAJOR}`,
  format: 'esm',
  platform: 'node',
  mainFields: ['module', 'main'],
  banner: REQUIRE_SHIM,
  minify: true,
  sourceMap: true,
  external: [] as string[],
} as const;

/** The handler each entry file exports. */
export const HANDLER_EXPORT = 'handler';
