import { Agent } from 'node:http';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { optionalEnv } from '../commons/env';
import { ON_DYNAMODB, ON_EMBEDDED_SERVER, type ConditionFailureItems } from './conditional';
import { checkedBeforeSending } from './call-deadlines';

/**
 * Retries and timeouts are bounded so a slow or throttled DynamoDB becomes a 503 inside the API
 * Gateway integration timeout (29 s); the function's own deadline (lib/edge/api-handler.ts) answers
 * 503 before its Lambda timeout, and no attempt goes on, or is sent, past it
 * (lib/stores/call-deadlines.ts).
 */
export const MAX_ATTEMPTS = 3;
/**
 * Per attempt. DynamoDB answers in milliseconds, but a slow one (replies 0.5-3 s late, issue 35)
 * must still serve: an attempt given up on at 2 s was one a reply was on its way to, and the
 * limiter's write, never retried, then answers 503 with its slot possibly used.
 */
export const REQUEST_TIMEOUT_MS = 4_000;
/**
 * The embedded server is one process answering every local request, far slower than DynamoDB
 * under a burst. It gets longer, still short enough that all attempts end inside 29 s.
 */
const LOCAL_REQUEST_TIMEOUT_MS = 8_000;
const CONNECTION_TIMEOUT_MS = 1_000;

export interface DynamoOptions {
  /** A DynamoDB-compatible endpoint (the embedded local server); the AWS default when absent. */
  endpoint?: string;
  /** Per-attempt timeout; by default the deployed one, or the local one with an endpoint. */
  requestTimeoutMs?: number;
  /** Attempts per call, first included; 1 sends a write that must never be applied twice. */
  maxAttempts?: number;
  /** The AWS Region, when a command line names one; the SDK's default chain otherwise. */
  region?: string;
}

/**
 * DYNAMODB_REQUEST_TIMEOUT_MS overrides the local stack's per-attempt timeout from outside (e.g.
 * `npm start` against a slower machine); code passes `requestTimeoutMs` instead.
 */
function requestTimeoutFromEnv(): number | undefined {
  const text = optionalEnv('DYNAMODB_REQUEST_TIMEOUT_MS');
  if (text === undefined) return undefined;
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new Error(`DYNAMODB_REQUEST_TIMEOUT_MS must be a positive integer, got "${text}"`);
  return ms;
}

/** The per-attempt timeout a client gets when none is given: the deployed one, or the local one with an endpoint. */
export function requestTimeoutFor(endpoint: string | undefined): number {
  return endpoint ? (requestTimeoutFromEnv() ?? LOCAL_REQUEST_TIMEOUT_MS) : REQUEST_TIMEOUT_MS;
}

export function createDynamoClient(options: DynamoOptions = {}): DynamoDBClient {
  const timeouts = {
    requestTimeout: options.requestTimeoutMs ?? requestTimeoutFor(options.endpoint),
    // Without it the SDK only logs a warning when the timeout passes, and goes on waiting.
    throwOnRequestTimeout: true,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
  };
  const config: DynamoDBClientConfig = { maxAttempts: options.maxAttempts ?? MAX_ATTEMPTS, requestHandler: timeouts };
  if (options.region !== undefined) config.region = options.region;
  if (options.endpoint) {
    // The embedded server accepts any credentials; fixed ones keep the local stack account-free.
    config.endpoint = options.endpoint;
    config.region = 'local';
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    // One process serves every local request through this client, unlike a Lambda's one at a
    // time: enough sockets that a burst does not queue into the connection timeout.
    config.requestHandler = { ...timeouts, httpAgent: new Agent({ keepAlive: true, maxSockets: 512 }) };
  }
  const client = new DynamoDBClient(config);
  // No logger is ever given to the SDK, yet its logger middleware still runs every response
  // through the sensitive-data filter (a deep copy) to hand to the default no-op logger: for a
  // listing's Scan pages that was a fifth of the handler's CPU and a second copy of each page.
  client.middlewareStack.remove('loggerMiddleware');
  // A call whose request was answered, or whose attempt's time is over, is not sent.
  checkedBeforeSending(client);
  return client;
}

/**
 * Numbers come back wrapped (`NumberValue`, holding the exact decimal digits) so an int64 id never
 * passes through a JS number; BigInt values are written as exact numbers.
 */
export function createDocumentClient(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true },
    unmarshallOptions: { wrapNumbers: true },
  });
}

/** The client a Lambda function or the local stack uses, configured from the environment. */
export function documentClientFromEnv(options: Omit<DynamoOptions, 'endpoint'> = {}): DynamoDBDocumentClient {
  const endpoint = optionalEnv('DYNAMODB_ENDPOINT');
  return createDocumentClient(createDynamoClient({ ...options, ...(endpoint ? { endpoint } : {}) }));
}

/**
 * Whether failed conditions come back with their item: on DynamoDB (a deployed function) they do;
 * behind DYNAMODB_ENDPOINT (the embedded server, the bench) they may not, so the read is kept.
 */
export function conditionFailureItemsFromEnv(): ConditionFailureItems {
  return optionalEnv('DYNAMODB_ENDPOINT') ? ON_EMBEDDED_SERVER : ON_DYNAMODB;
}
