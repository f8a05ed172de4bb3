// The one builder of what API Gateway REST and Lambda hand a handler: the proxy event and the
// Lambda context. The local gateway builds every invocation with it, and the tests and the bench
// build theirs with it too, so a field API Gateway sets differently is fixed in one place.
import { createHash, randomUUID } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, Context } from 'aws-lambda';
import { FUNCTIONS, type EntryId, type FunctionSettings } from '../../lib/contract/deployment';
import { BASE_PATH, basePathOf, pathParameterNames, type Route } from '../../lib/contract/routes';

const LOCAL_ACCOUNT = '000000000000';
const LOCAL_API_ID = 'local';
const LOCAL_REGION = 'local';

export function methodArn(method: string, resourcePath: string, basePath: string = BASE_PATH): string {
  return `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${basePath.slice(1)}/${method}${resourcePath}`;
}

/** What a TOKEN authorizer returned for the request, and how long it took (0 when answered from the cache). */
type AuthorizerOutcome = Pick<APIGatewayAuthorizerResult, 'principalId' | 'context' | 'usageIdentifierKey'> & {
  latencyMs?: number;
};

export interface ProxyRequest {
  route: Pick<Route, 'method' | 'path' | 'operationId' | 'basePath'>;
  /** The path below the stage as the client sent it; by default the route's, parameters filled in. */
  path?: string;
  pathParameters?: Record<string, string> | null;
  /** Node's `rawHeaders` (names and values in arrival order), or a plain record. */
  headers?: readonly string[] | Record<string, string>;
  /** The raw query string, without `?`. */
  query?: string;
  body?: string | null;
  /** The body is base64 (API Gateway encodes it when the API's binaryMediaTypes cover its Content-Type). */
  isBase64Encoded?: boolean;
  authorizer?: AuthorizerOutcome;
  requestId?: string;
  /** Epoch milliseconds the request arrived. */
  now?: number;
  sourceIp?: string;
  protocol?: string;
}

/** `$context.requestTime`: CLF format in UTC, e.g. `09/Apr/2015:12:34:56 +0000`, rearranged from toUTCString's. */
export function requestTime(epochMs: number): string {
  const [, day, month, year, time] = new Date(epochMs).toUTCString().split(' ');
  return `${day}/${month}/${year}:${time} +0000`;
}

/** `requestContext.authorizer` as API Gateway builds it: principal, latency, context values as strings. */
function authorizerContext(outcome: AuthorizerOutcome): Record<string, string | number> {
  const values = Object.entries(outcome.context ?? {}).map(([k, v]) => [k, String(v)]);
  return {
    ...Object.fromEntries(values),
    principalId: outcome.principalId,
    integrationLatency: outcome.latencyMs ?? 0,
  };
}

/**
 * API Gateway's id of the key a usage identifier names. The real one is assigned when the admin
 * command creates the key; locally a stable stand-in of the same shape (10 characters) is derived.
 */
function localApiKeyId(usageIdentifierKey: string): string {
  return createHash('sha256').update(usageIdentifierKey).digest('hex').slice(0, 10);
}

function headerPairs(headers: ProxyRequest['headers'] = {}): [string, string][] {
  if (!Array.isArray(headers)) return Object.entries(headers);
  return headers.flatMap((name, i) => (i % 2 === 0 ? [[name, headers[i + 1] ?? '']] : []));
}

/**
 * API Gateway's single-value map (the last value of a name wins) and its multi-value map: every
 * name an own key (`constructor` and `__proto__` too), as in the JSON event Lambda parses.
 */
function valueMaps(pairs: Iterable<readonly [string, string]>) {
  const multi = new Map<string, string[]>();
  for (const [name, value] of pairs) if (!multi.get(name)?.push(value)) multi.set(name, [value]);
  const single = [...multi].map(([name, values]): [string, string] => [name, values.at(-1) ?? '']);
  return { single: Object.fromEntries(single), multi: Object.fromEntries(multi) };
}

function filledPath(template: string, parameters: Record<string, string> | null | undefined): string {
  return pathParameterNames(template).reduce(
    (path, name) => path.replace(`{${name}}`, encodeURIComponent(parameters?.[name] ?? '')),
    template,
  );
}

function headerValue(pairs: readonly (readonly [string, string])[], name: string): string | undefined {
  return pairs.find(([k]) => k.toLowerCase() === name)?.[1];
}

/** The REST API (v1) Lambda proxy event, shaped as API Gateway passes it to the handlers. */
export function buildProxyEvent(request: ProxyRequest): APIGatewayProxyEvent {
  const { route } = request;
  const pairs = headerPairs(request.headers);
  const path = request.path ?? filledPath(route.path, request.pathParameters);
  const now = request.now ?? Date.now();
  const requestId = request.requestId ?? randomUUID();
  const host = headerValue(pairs, 'host') ?? `${LOCAL_API_ID}.localhost`;
  const usageKey = request.authorizer?.usageIdentifierKey ?? null;
  const headers = valueMaps(pairs);
  const params = new URLSearchParams(request.query ?? '');
  // No query string is null, where no headers are empty maps.
  const query = params.size > 0 ? valueMaps(params) : undefined;
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    headers: headers.single,
    multiValueHeaders: headers.multi,
    queryStringParameters: query?.single ?? null,
    multiValueQueryStringParameters: query?.multi ?? null,
    pathParameters: request.pathParameters ?? null,
    stageVariables: null,
    body: request.body === undefined || request.body === '' ? null : request.body,
    isBase64Encoded: request.isBase64Encoded === true && Boolean(request.body),
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: LOCAL_API_ID,
      authorizer: request.authorizer ? authorizerContext(request.authorizer) : undefined,
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      extendedRequestId: requestId,
      httpMethod: route.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: usageKey,
        apiKeyId: usageKey === null ? null : localApiKeyId(usageKey),
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: request.sourceIp ?? '127.0.0.1',
        user: null,
        userAgent: headerValue(pairs, 'user-agent') ?? null,
        userArn: null,
      },
      path: `${basePathOf(request.route)}${path}`,
      protocol: request.protocol ?? 'HTTP/1.1',
      requestId,
      requestTime: requestTime(now),
      requestTimeEpoch: now,
      resourceId: route.operationId,
      resourcePath: route.path,
      stage: basePathOf(request.route).slice(1),
    },
  };
}

/**
 * One invocation's Lambda context, with the function's deployed memory and deadline (lib/contract/deployment.ts);
 * `settings` replaces them only in tests that need a short deadline.
 */
export function lambdaContext(
  id: EntryId,
  options: { settings?: FunctionSettings; awsRequestId?: string; now?: () => number } = {},
): Context {
  const settings = options.settings ?? FUNCTIONS[id];
  const now = options.now ?? Date.now;
  const deadline = now() + settings.timeoutSeconds * 1000;
  const functionName = id;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: String(settings.memoryMb),
    awsRequestId: options.awsRequestId ?? randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
