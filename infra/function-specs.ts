import { Duration } from 'aws-cdk-lib';
import type { EntryName } from './constructs/service-function';
import type { TableAccess } from './constructs/service-tables';

export interface FunctionSpec {
  description: string;
  memorySize: number;
  /** Below the integration timeout, so the handler (not API Gateway) decides what a slow call returns. */
  timeout: Duration;
  /** The tables the function reads or writes, with exactly the actions its code sends. */
  access: TableAccess;
}

/** API Gateway's default (and, for buffered responses, maximum) integration timeout. */
export const BUFFERED_INTEGRATION_TIMEOUT = Duration.seconds(29);

/**
 * Headroom between a streaming function's own timeout and the integration timeout, so the
 * function always stops first.
 */
export const STREAMING_INTEGRATION_HEADROOM = Duration.seconds(5);

const RATE_LIMIT_COUNTERS = ['dynamodb:UpdateItem', 'dynamodb:GetItem'] as const;

export const FUNCTION_SPECS: Record<EntryName, FunctionSpec> = {
  authorizer: {
    description: 'Bearer API key authorizer: one key lookup, answer cached by API Gateway',
    memorySize: 256,
    timeout: Duration.seconds(10),
    access: { apiKeys: ['dynamodb:GetItem'] },
  },
  'list-orders': {
    description: 'GET /store/orders: streams every order',
    // Serialising pages of a full-table scan is CPU-bound, and Lambda CPU scales with memory.
    memorySize: 512,
    // A streamed answer may outlast the 29 s buffered limit (API Gateway allows up to 15 minutes
    // when streaming); a minute covers a large store without letting a stuck scan run on.
    timeout: Duration.seconds(60),
    // DescribeTable: the item count sizes the parallel Scan, read at most once an hour.
    access: { orders: ['dynamodb:Scan', 'dynamodb:DescribeTable'], rateLimits: RATE_LIMIT_COUNTERS },
  },
  'cancel-order': {
    description: 'DELETE /store/orders/{orderId}: cancels a pending order',
    memorySize: 256,
    timeout: Duration.seconds(10),
    access: { orders: ['dynamodb:UpdateItem', 'dynamodb:GetItem'], rateLimits: RATE_LIMIT_COUNTERS },
  },
};
