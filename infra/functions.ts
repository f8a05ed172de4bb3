// The settings of each Lambda function, declared once and free of aws-cdk-lib so that every reader
// can load it: the CDK stack deploys them, the local gateway gives each handler the same Lambda
// context and deadline, and the bench bundles and runs the functions with them.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TableId } from '../lib/contract/tables';
import type { FunctionName } from '../lib/contract/routes';
import { LIST_SETTINGS, STREAMING_INTEGRATION_HEADROOM_SECONDS } from './list-budget';

/** Every Lambda entry: the route functions and the authorizer. Each has `functions/<id>.ts`. */
export type FunctionId = FunctionName | 'authorizer';

// The CDK app and the bench run as ESM (tsx), the tests as CommonJS (jest): both ways of finding this file are needed.
const HERE = typeof __dirname === 'string' ? __dirname : path.dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = path.resolve(HERE, '..');

/** The entry file of a function, as the stack and the bench bundle it. */
export const functionEntry = (id: FunctionId): string => path.join(REPO_ROOT, 'functions', `${id}.ts`);

/** The only DynamoDB actions the service's functions use; anything else is not grantable. */
export type TableAction =
  | 'dynamodb:GetItem'
  | 'dynamodb:UpdateItem'
  | 'dynamodb:PutItem'
  | 'dynamodb:DeleteItem'
  | 'dynamodb:Scan'
  | 'dynamodb:DescribeTable';
export type TableAccess = Partial<Record<TableId, readonly TableAction[]>>;

export interface FunctionSettings {
  description: string;
  /** Lambda memory in MB; CPU scales with it. */
  memoryMb: number;
  /** Below the integration timeout, so the handler (not API Gateway) decides what a slow call returns. */
  timeoutSeconds: number;
  /** The tables the function reads or writes, with exactly the actions its code sends. */
  access: TableAccess;
  /**
   * The most its minified bundle may weigh, in KiB (checked by the bundle test): module loading is
   * most of a cold start, so growing past it is a decision made here, not an accident.
   */
  bundleBudgetKib: number;
  /**
   * V8 flags node starts with, through the wrapper in infra/runtime (NODE_OPTIONS cannot carry
   * them): right after node, the runtime's own setting of the same flag left out, so they win.
   * None unless a measurement asks for them.
   */
  nodeFlags?: readonly string[];
}

const RATE_LIMIT_COUNTERS = ['dynamodb:UpdateItem', 'dynamodb:GetItem'] as const;

export const FUNCTIONS: Record<FunctionId, FunctionSettings> = {
  authorizer: {
    description: 'Bearer API key authorizer: one key lookup, answer cached by API Gateway',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { apiKeys: ['dynamodb:GetItem'] },
    bundleBudgetKib: 450,
  },
  'list-orders': {
    description: 'GET /store/orders: streams every order',
    // Computed in infra/list-budget.ts from measured throughput and Lambda's streaming limits: one
    // vCPU, and time for the largest compressed response Lambda allows.
    memoryMb: LIST_SETTINGS.memoryMb,
    timeoutSeconds: LIST_SETTINGS.timeoutSeconds,
    // DescribeTable: the item count sizes the parallel Scan and refuses an uncompressed listing too
    // large for one response, read at most once an hour. PutItem/DeleteItem: the in-flight slots.
    access: {
      orders: ['dynamodb:Scan', 'dynamodb:DescribeTable'],
      rateLimits: [...RATE_LIMIT_COUNTERS, 'dynamodb:PutItem', 'dynamodb:DeleteItem'],
    },
    bundleBudgetKib: 480,
    // A listing allocates at a steady rate for minutes; with the runtime's 88 MB semi-space V8
    // grows its young generation the longer a listing runs, so the peak grew with the table (+150 %
    // from 20k to 1M orders). This V8 flag keeps the semi-space at 1 MB and the heap's growth
    // modest, so memory stays flat with table size, at a CPU cost the budget (list-budget.ts) counts.
    nodeFlags: ['--optimize-for-size'],
  },
  'cancel-order': {
    description: 'DELETE /store/orders/{orderId}: cancels a pending order',
    memoryMb: 256,
    timeoutSeconds: 10,
    access: { orders: ['dynamodb:UpdateItem', 'dynamodb:GetItem'], rateLimits: RATE_LIMIT_COUNTERS },
    bundleBudgetKib: 480,
  },
};

/** API Gateway's default (and, for buffered responses, maximum) integration timeout. */
const BUFFERED_INTEGRATION_TIMEOUT_SECONDS = 29;

/** How long API Gateway waits for a route's function: buffered answers are capped at 29 s. */
export function integrationTimeoutSeconds(id: FunctionName, streaming: boolean): number {
  return streaming
    ? FUNCTIONS[id].timeoutSeconds + STREAMING_INTEGRATION_HEADROOM_SECONDS
    : BUFFERED_INTEGRATION_TIMEOUT_SECONDS;
}

/**
 * A bundled ESM file cannot `require`, yet some bundled CommonJS dependencies still call it; the
 * banner gives them one. The alias avoids clashing with a createRequire import in the bundle.
 */
const REQUIRE_SHIM =
  "import { createRequire as __storeOrdersCreateRequire } from 'node:module';" +
  'const require = __storeOrdersCreateRequire(import.meta.url);';

/**
 * How every function is bundled (esbuild options as NodejsFunction passes them). The AWS SDK is
 * bundled rather than taken from the runtime, so the deployed code runs the SDK version the tests ran.
 */
export const BUNDLING = {
  target: 'node22',
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
