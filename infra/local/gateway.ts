import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { APIGatewayAuthorizerResult, APIGatewayProxyEvent, APIGatewayTokenAuthorizerEvent, Context } from 'aws-lambda';
import type { StreamingLambdaHandler } from '../../lib/http/api-handler';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE, redactApiKeys } from '../../lib/keys/format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { UNAUTHORIZED_MESSAGE } from '../../lib/keys/authorizer';
import { errorJson } from '../../lib/contract/errors';
import { gatewayResponse, type GatewayResponseType, type PlainResponse } from '../../lib/contract/gateway-responses';
import { BASE_PATH, pathParameterNames, type Route } from '../../lib/contract/routes';
import { policyAllows } from './policy';
import { inInvocation } from './invoke-store';
import { httpStreamTarget, invokeBuffered, invokeStreamed, type ProxyHandler } from './invoke';
import { installLocalLambdaRuntime } from './lambda-streaming';
import { buildProxyEvent, lambdaContext, methodArn } from './proxy-event';

export type { ProxyHandler };
export type TokenAuthorizer = (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;

/** A route the gateway answers itself, without the authorizer (the OpenAPI document, docs). */
export interface PublicRoute {
  method: 'GET';
  path: string;
  respond(): PlainResponse | Promise<PlainResponse>;
}

export interface AccessLogEntry {
  requestId: string;
  method: string;
  /** The request target as sent, with anything shaped like an API key redacted. */
  path: string;
  status: number;
  durationMs: number;
}

export interface LocalGatewayOptions {
  routes: readonly Route[];
  /** One handler per route, by operationId: streamed for routes declared `streaming`. */
  handlers: Record<string, ProxyHandler | StreamingLambdaHandler>;
  authorizer: TokenAuthorizer;
  publicRoutes?: readonly PublicRoute[];
  authorizerCacheTtlSeconds?: number;
  /** API Gateway's integration timeout. */
  integrationTimeoutMs?: number;
  now?: () => number;
  onAccessLog?: (entry: AccessLogEntry) => void;
}

interface CompiledRoute {
  pattern: RegExp;
  template: string;
  methods: Map<string, Route>;
}

const HEADER_PATTERN = new RegExp(AUTHORIZATION_HEADER_PATTERN_SOURCE);
const MAX_CACHED_TOKENS = 10_000;

function compile(routes: readonly Route[]): CompiledRoute[] {
  const byTemplate = new Map<string, CompiledRoute>();
  for (const route of routes) {
    const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '([^/]*)');
    const compiled = byTemplate.get(route.path) ?? { pattern: new RegExp(`^${source}$`), template: route.path, methods: new Map() };
    compiled.methods.set(route.method, route);
    byTemplate.set(route.path, compiled);
  }
  return [...byTemplate.values()];
}

function decode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** A response already written to the client by a streamed handler. */
interface Streamed {
  streamed: true;
  statusCode: number;
}

class GatewayAnswer extends Error {
  constructor(readonly response: PlainResponse) {
    super('gateway answer');
  }
}

function answer(type: GatewayResponseType): GatewayAnswer {
  return new GatewayAnswer(gatewayResponse(type));
}

/**
 * A stand-in for API Gateway REST on this machine: the `/v1` base path, routing with 404 and
 * 405, the TOKEN authorizer with its validation pattern and result cache, the proxy event, and
 * the gateway responses. It makes no decision about orders, keys or limits: those are the
 * handlers', unchanged from the deployed ones.
 */
export function createLocalGateway(options: LocalGatewayOptions): Server {
  installLocalLambdaRuntime();
  const compiled = compile(options.routes);
  const publicRoutes = new Map((options.publicRoutes ?? []).map((r) => [`${r.method} ${r.path}`, r]));
  const ttlMs = (options.authorizerCacheTtlSeconds ?? AUTHORIZER_CACHE_TTL_SECONDS) * 1000;
  const timeoutMs = options.integrationTimeoutMs ?? 29_000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();

  async function authorize(header: string | undefined, arn: string): Promise<APIGatewayAuthorizerResult> {
    if (header === undefined || !HEADER_PATTERN.test(header)) throw answer('UNAUTHORIZED');
    const cached = cache.get(header);
    if (cached && cached.expiresAt > now()) return cached.result;
    let result: APIGatewayAuthorizerResult;
    try {
      const context = lambdaContext('authorizer');
      result = await inInvocation(context, () => options.authorizer({ type: 'TOKEN', authorizationToken: header, methodArn: arn }, context));
    } catch (error) {
      if (error instanceof Error && error.message === UNAUTHORIZED_MESSAGE) throw answer('UNAUTHORIZED');
      throw answer('AUTHORIZER_FAILURE');
    }
    if (cache.size >= MAX_CACHED_TOKENS) cache.delete(cache.keys().next().value as string);
    cache.set(header, { result, expiresAt: now() + ttlMs });
    return result;
  }

  function withTimeout<T>(work: Promise<T>, stillTimely: () => boolean = () => true): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (stillTimely()) reject(answer('INTEGRATION_TIMEOUT'));
      }, timeoutMs);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  async function invoke(handler: ProxyHandler, event: APIGatewayProxyEvent, name: string): Promise<PlainResponse> {
    try {
      const response = await withTimeout(invokeBuffered(handler, event, lambdaContext(name)));
      if (!response) throw answer('DEFAULT_5XX');
      return response;
    } catch (error) {
      if (error instanceof GatewayAnswer) throw error;
      // A handler that crashes is API Gateway's 502 "Internal server error".
      throw answer('DEFAULT_5XX');
    }
  }

  /**
   * Streams the handler's output into the HTTP response. Before the first byte a failure is
   * still a gateway response; after it, the connection is cut so the client sees a truncated body.
   */
  async function invokeStreaming(
    handler: StreamingLambdaHandler,
    event: APIGatewayProxyEvent,
    name: string,
    res: ServerResponse,
    requestId: string,
  ): Promise<Streamed | PlainResponse> {
    let statusCode = 0;
    const target = httpStreamTarget(res, { 'X-Amzn-RequestId': requestId }, (s) => {
      statusCode = s;
    });
    const { stream, done } = invokeStreamed(handler, event, lambdaContext(name), target);
    res.once('close', () => {
      if (!res.writableFinished) stream.destroy(new Error('client went away'));
    });
    try {
      await withTimeout(done, () => !stream.headSent);
      return { streamed: true, statusCode };
    } catch (error) {
      if (stream.headSent) {
        res.destroy();
        return { streamed: true, statusCode };
      }
      if (error instanceof GatewayAnswer) throw error;
      throw answer('DEFAULT_5XX');
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<PlainResponse | Streamed> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== BASE_PATH && !url.pathname.startsWith(`${BASE_PATH}/`)) throw answer('MISSING_AUTHENTICATION_TOKEN');
    const path = url.pathname.slice(BASE_PATH.length) || '/';
    const method = req.method ?? 'GET';

    const publicRoute = publicRoutes.get(`${method} ${path}`);
    if (publicRoute) return publicRoute.respond();

    const resource = compiled.find((c) => c.pattern.test(path));
    if (!resource) throw answer('MISSING_AUTHENTICATION_TOKEN');
    const target = resource.methods.get(method);
    if (!target) {
      return {
        statusCode: 405,
        headers: { 'Content-Type': 'application/json', Allow: [...resource.methods.keys()].join(', ') },
        body: errorJson('METHOD_NOT_ALLOWED'),
      };
    }
    const handler = options.handlers[target.operationId];
    if (!handler) throw answer('DEFAULT_5XX');

    const arn = methodArn(method, path);
    const policy = await authorize(req.headers.authorization, arn);
    if (!policyAllows(policy.policyDocument, arn)) throw answer('ACCESS_DENIED');

    const values = resource.pattern.exec(path)?.slice(1) ?? [];
    const names = pathParameterNames(target.path);
    const pathParameters = names.length ? Object.fromEntries(names.map((n, i) => [n, decode(values[i] ?? '')])) : null;
    const event = buildProxyEvent({
      req,
      url,
      route: target,
      path,
      pathParameters,
      authorizer: { principalId: policy.principalId, ...policy.context },
      requestId,
      now: now(),
    });
    return target.streaming
      ? invokeStreaming(handler as StreamingLambdaHandler, event, target.function, res, requestId)
      : invoke(handler as ProxyHandler, event, target.function);
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const started = Date.now();
    const requestId = randomUUID();
    // No route takes a body: it is read and dropped so the connection stays usable.
    req.resume();
    route(req, res, requestId)
      .catch((error: unknown) => (error instanceof GatewayAnswer ? error.response : gatewayResponse('DEFAULT_5XX')))
      .then((response) => {
        if (!('streamed' in response)) {
          res.writeHead(response.statusCode, { ...response.headers, 'X-Amzn-RequestId': requestId });
          res.end(response.statusCode === 204 || req.method === 'HEAD' ? undefined : response.body);
        }
        options.onAccessLog?.({
          requestId,
          method: req.method ?? '',
          path: redactApiKeys(req.url ?? ''),
          status: response.statusCode,
          durationMs: Date.now() - started,
        });
      })
      .catch(() => res.destroy());
  });
  server.on('clientError', answerMalformedRequest);
  return server;
}

/**
 * Requests node cannot even parse (oversized headers, broken framing) still get the Error body,
 * as API Gateway's own 4xx would, instead of node's bare status line.
 */
function answerMalformedRequest(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const message = error.code === 'HPE_HEADER_OVERFLOW' ? 'The request headers are too large.' : undefined;
  const body = errorJson('BAD_REQUEST', message);
  socket.end(
    `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `Connection: close\r\n\r\n${body}`,
  );
}
