import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { BASE_PATH, type Route } from '../../lib/contract/routes';

export const LOCAL_ACCOUNT = '000000000000';
export const LOCAL_API_ID = 'local';
export const LOCAL_REGION = 'local';
export const STAGE = BASE_PATH.slice(1);

export function methodArn(method: string, resourcePath: string): string {
  return `arn:aws:execute-api:${LOCAL_REGION}:${LOCAL_ACCOUNT}:${LOCAL_API_ID}/${STAGE}/${method}${resourcePath}`;
}

function headerMaps(req: IncomingMessage) {
  const headers: Record<string, string> = {};
  const multiValueHeaders: Record<string, string[]> = {};
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const value = req.rawHeaders[i + 1] as string;
    headers[name] = value;
    (multiValueHeaders[name] ??= []).push(value);
  }
  return { headers, multiValueHeaders };
}

function queryMaps(url: URL) {
  if ([...url.searchParams.keys()].length === 0) {
    return { queryStringParameters: null, multiValueQueryStringParameters: null };
  }
  const single: Record<string, string> = {};
  const multi: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) {
    single[name] = value;
    (multi[name] ??= []).push(value);
  }
  return { queryStringParameters: single, multiValueQueryStringParameters: multi };
}

/** The REST API (v1) Lambda proxy event, shaped as API Gateway passes it to the handlers. */
export function buildProxyEvent(options: {
  req: IncomingMessage;
  url: URL;
  route: Route;
  /** Path below the stage, e.g. `/store/orders/5`. */
  path: string;
  pathParameters: Record<string, string> | null;
  authorizer: Record<string, unknown>;
  requestId: string;
  now: number;
}): APIGatewayProxyEvent {
  const { req, url, route, path } = options;
  const sourceIp = req.socket.remoteAddress ?? '127.0.0.1';
  return {
    resource: route.path,
    path,
    httpMethod: route.method,
    ...headerMaps(req),
    ...queryMaps(url),
    pathParameters: options.pathParameters,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      accountId: LOCAL_ACCOUNT,
      apiId: LOCAL_API_ID,
      authorizer: options.authorizer,
      domainName: req.headers.host ?? 'localhost',
      domainPrefix: 'localhost',
      extendedRequestId: options.requestId,
      httpMethod: route.method,
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp,
        user: null,
        userAgent: req.headers['user-agent'] ?? null,
        userArn: null,
      },
      path: `${BASE_PATH}${path}`,
      protocol: `HTTP/${req.httpVersion}`,
      requestId: options.requestId,
      requestTime: new Date(options.now).toUTCString(),
      requestTimeEpoch: options.now,
      resourceId: route.operationId,
      resourcePath: route.path,
      stage: STAGE,
    },
  };
}

/** A Lambda context for one local invocation. */
export function lambdaContext(functionName: string, timeoutMs = 10_000): Context {
  const deadline = Date.now() + timeoutMs;
  const awsRequestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${LOCAL_REGION}:${LOCAL_ACCOUNT}:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
