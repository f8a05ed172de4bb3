import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayTokenAuthorizerEvent,
  Context,
} from 'aws-lambda';
import type { StreamingLambdaHandler } from '../../lib/edge/api-handler';
import { AUTHORIZATION_HEADER_PATTERN_SOURCE, redactApiKeys } from '../../lib/core/access/key-format';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../../lib/contract/auth';
import { UNAUTHORIZED_MESSAGE } from '../../lib/edge/authorizer';
import { errorJson, errorResponse } from '../../lib/contract/errors';
import { ADDRESS_LIMIT, ADDRESS_LIMITED_ANSWER, type AddressLimit } from '../../lib/contract/address-limit';
import {
  gatewayResponse,
  methodNotAllowedFor,
  type GatewayResponseType,
  type PlainResponse,
} from '../../lib/contract/gateway-responses';
import { basePathOf, binaryMediaTypesOf, type Route } from '../../lib/contract/routes';
import { FUNCTIONS, type FunctionId, type FunctionSettings } from '../../lib/contract/deployment';
import { REAL_TIMERS, type Timers } from '../../lib/commons/timers';
import { policyAllows } from './policy';
import { UsagePlanThrottle } from './usage-plan-throttle';
import { AddressRateRule } from './address-limit';
import { inInvocation } from './invoke-store';
import { invokeBuffered, invokeStreamed, type BufferedResponse, type ProxyHandler } from './invoke';
import { gatewayEncodesRequestBody } from '../../lib/edge/encoded-body';
import { idleTimeoutMs, RECEIVE_LIMITS, RequestFraming, type ReceiveLimits } from './request-framing';
import { buildProxyEvent, lambdaContext, methodArn } from './proxy-event';

/** A route the gateway answers itself, without the authorizer (the OpenAPI document, docs). */
export interface PublicRoute {
  method: 'GET';
  path: string;
  /** The version prefix it is under; BASE_PATH (`/v1`) when absent. */
  basePath?: string;
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

export interface LocalGatewayOptions<Op extends string = string> {
  routes: readonly Route<Op>[];
  /** One handler per route, by operationId: streamed for routes declared `streaming`. */
  handlers: Record<Op, ProxyHandler | StreamingLambdaHandler>;
  authorizer: (event: APIGatewayTokenAuthorizerEvent, context: Context) => Promise<APIGatewayAuthorizerResult>;
  publicRoutes?: readonly PublicRoute[];
  /** Each function's memory and timeout: lib/contract/deployment.ts's unless a test needs a short deadline. */
  functions?: Record<FunctionId, FunctionSettings>;
  now?: () => number;
  onAccessLog?: (entry: AccessLogEntry) => void;
  /** How long a client may take to send a request; request-framing.ts's unless a test needs short ones. */
  receiveLimits?: ReceiveLimits;
  /** The functions' deadlines: real time unless a test runs the stack on a virtual clock. */
  timers?: Timers;
  /** The web ACL's limit per client address: lib/contract/address-limit.ts's unless `npm start` or a test sets one. */
  addressLimit?: AddressLimit;
}

interface CompiledRoute<Op extends string> {
  /** Each path parameter a named group. */
  pattern: RegExp;
  methods: Map<string, Route<Op>>;
}

const HEADER_PATTERN = new RegExp(AUTHORIZATION_HEADER_PATTERN_SOURCE);
const MAX_CACHED_TOKENS = 10_000;

/** A path parameter is one non-empty segment, matched on the path as sent (never normalised). */
function compile<Op extends string>(routes: readonly Route<Op>[]): CompiledRoute<Op>[] {
  const byPath = new Map<string, CompiledRoute<Op>>();
  for (const route of routes) {
    const source = route.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, '(?<$1>[^/]+)');
    const compiled = byPath.get(route.path) ?? { pattern: new RegExp(`^${source}$`), methods: new Map() };
    compiled.methods.set(route.method, route);
    byPath.set(route.path, compiled);
  }
  return [...byPath.values()];
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

/** Thrown to answer with a gateway response instead of the handler's. */
class GatewayAnswer extends Error {
  readonly response: PlainResponse;
  constructor(type: GatewayResponseType) {
    super(type);
    this.response = gatewayResponse(type);
  }
}

function send(
  req: IncomingMessage,
  res: ServerResponse,
  response: BufferedResponse,
  requestId: string,
  close: boolean,
) {
  res.writeHead(response.statusCode, {
    ...response.headers,
    'X-Amzn-RequestId': requestId,
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(response.statusCode === 204 || req.method === 'HEAD' ? undefined : response.body);
}

function badRequest(message?: string): PlainResponse {
  return { statusCode: 400, headers: { 'Content-Type': 'application/json' }, body: errorJson('BAD_REQUEST', message) };
}

/** The function was stopped at its deadline, as Lambda stops it. */
class DeadlinePassed extends Error {
  constructor() {
    super('function deadline passed');
  }
}

async function beforeDeadline<T>(
  work: Promise<T>,
  context: Context,
  timers: Timers,
  onDeadline: () => void = () => undefined,
): Promise<T> {
  let cancel: (() => void) | undefined;
  const deadline = new Promise<never>((_, reject) => {
    cancel = timers.after(context.getRemainingTimeInMillis(), () => {
      onDeadline();
      reject(new DeadlinePassed());
    });
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    cancel?.();
  }
}

/**
 * API Gateway REST on this machine (base path, 404/405, TOKEN authorizer and its cache, payload
 * limit, proxy event, function deadlines, gateway responses, the usage plans' per-key throttle),
 * behind the web ACL's limit per client address. Orders, keys and limits are the handlers' to
 * decide, unchanged from the deployed ones.
 */
export function createLocalGateway<Op extends string>(options: LocalGatewayOptions<Op>): Server {
  // Each version prefix (`/v1`, `/v2`) has its own routes, as each is its own tree of resources.
  const byBase = new Map<string, CompiledRoute<Op>[]>();
  const bases = [...options.routes, ...(options.publicRoutes ?? [])].map(basePathOf);
  for (const base of new Set(bases)) byBase.set(base, compile(options.routes.filter((r) => basePathOf(r) === base)));
  // Each RestApi's binaryMediaTypes, as the stack gives them (infra/constructs/orders-api.ts).
  const binaryMediaTypes = (route: Route) =>
    binaryMediaTypesOf(options.routes.filter((r) => basePathOf(r) === basePathOf(route)));
  const publicRoutes = new Map((options.publicRoutes ?? []).map((r) => [`${r.method} ${basePathOf(r)}${r.path}`, r]));
  const ttlMs = AUTHORIZER_CACHE_TTL_SECONDS * 1000;
  const functions = options.functions ?? FUNCTIONS;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();
  const throttle = new UsagePlanThrottle(now);
  const addressRule = new AddressRateRule(options.addressLimit ?? ADDRESS_LIMIT, now);
  const timers = options.timers ?? REAL_TIMERS;
  const contextOf = (id: FunctionId) => lambdaContext(id, { settings: functions[id], now: timers.now });

  const pending = new Map<string, Promise<APIGatewayAuthorizerResult>>();

  /**
   * One authorizer invocation, within its deadline. Concurrent requests with the same uncached
   * token share it (API Gateway would invoke the authorizer for each): the embedded server is far
   * slower than DynamoDB under a burst, and a burst of lookups would otherwise outlast the deadline.
   */
  function callAuthorizer(header: string, arn: string, cacheKey: string): Promise<APIGatewayAuthorizerResult> {
    const running = pending.get(cacheKey);
    if (running) return running;
    const context = contextOf('authorizer');
    const invocation = inInvocation(context, () =>
      options.authorizer({ type: 'TOKEN', authorizationToken: header, methodArn: arn }, context),
    );
    const call = beforeDeadline(invocation, context, timers).finally(() => pending.delete(cacheKey));
    pending.set(cacheKey, call);
    return call;
  }

  /** Answers are cached per stage (each version is one), as API Gateway caches them: the policy names the stage. */
  async function authorize(
    header: string | undefined,
    arn: string,
    stage: string,
  ): Promise<APIGatewayAuthorizerResult & { latencyMs: number }> {
    if (header === undefined || !HEADER_PATTERN.test(header)) throw new GatewayAnswer('UNAUTHORIZED');
    const cacheKey = `${stage} ${header}`;
    const cached = cache.get(cacheKey);
    if (cached && cached.expiresAt > now()) return { ...cached.result, latencyMs: 0 };
    let result: APIGatewayAuthorizerResult;
    const started = Date.now();
    try {
      result = await callAuthorizer(header, arn, cacheKey);
    } catch (error) {
      if (error instanceof Error && error.message === UNAUTHORIZED_MESSAGE) throw new GatewayAnswer('UNAUTHORIZED');
      throw new GatewayAnswer('AUTHORIZER_FAILURE');
    }
    if (cache.size >= MAX_CACHED_TOKENS) cache.delete(cache.keys().next().value as string);
    cache.set(cacheKey, { result, expiresAt: now() + ttlMs });
    return { ...result, latencyMs: Date.now() - started };
  }

  // A handler that crashes, times out or returns no response is answered DEFAULT_5XX (the server's catch).
  async function invoke(handler: ProxyHandler, event: APIGatewayProxyEvent, route: Route): Promise<BufferedResponse> {
    const context = contextOf(route.function);
    const invoked = invokeBuffered(handler, event, context, binaryMediaTypes(route));
    return (await beforeDeadline(invoked, context, timers)) ?? gatewayResponse('DEFAULT_5XX');
  }

  /**
   * A failure before the first byte is still a gateway response; after it the connection is cut,
   * so the client sees a truncated body. The deadline destroys the stream, as Lambda stops the function.
   */
  async function invokeStreaming(
    handler: StreamingLambdaHandler,
    event: APIGatewayProxyEvent,
    id: FunctionId,
    res: ServerResponse,
    requestId: string,
  ): Promise<Streamed | PlainResponse> {
    let statusCode = 0;
    const context = contextOf(id);
    const { stream, done } = invokeStreamed(handler, event, context, {
      head: (status, headers) => {
        statusCode = status;
        res.writeHead(status, { ...headers, 'X-Amzn-RequestId': requestId });
      },
      // Backpressure: the next chunk waits until the client has taken this one.
      write: (chunk) =>
        new Promise<void>((resolve, reject) => {
          if (res.destroyed) return reject(new Error('client went away'));
          if (res.write(chunk)) return resolve();
          const onDrain = () => {
            res.off('close', onClose);
            resolve();
          };
          const onClose = () => {
            res.off('drain', onDrain);
            reject(new Error('client went away'));
          };
          res.once('drain', onDrain);
          res.once('close', onClose);
        }),
      end: () => res.end(),
    });
    res.once('close', () => {
      if (!res.writableFinished) stream.destroy(new Error('client went away'));
    });
    try {
      await beforeDeadline(done, context, timers, () => stream.destroy(new DeadlinePassed()));
    } catch (error) {
      if (!stream.headSent) throw error;
      res.destroy();
    }
    return { streamed: true, statusCode };
  }

  async function route(
    req: IncomingMessage,
    res: ServerResponse,
    requestId: string,
  ): Promise<BufferedResponse | Streamed> {
    // API Gateway's requestTimeEpoch is when the request arrived, before the authorizer's lookup.
    const receivedAt = now();
    // The web ACL counts every request that arrives, and answers a blocked one before anything runs.
    const blocked = addressRule.blocks(req.socket.remoteAddress ?? '');
    const body = await framing.readBody(req);
    if (blocked) return errorResponse(ADDRESS_LIMITED_ANSWER);
    if (!body.ok) return badRequest(body.message);
    if (req.headers.host === undefined) return badRequest('The request has no Host header.');

    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
    const query = queryAt < 0 ? '' : target.slice(queryAt + 1);
    const basePath = [...byBase.keys()].find((base) => rawPath === base || rawPath.startsWith(`${base}/`));
    if (basePath === undefined) throw new GatewayAnswer('MISSING_AUTHENTICATION_TOKEN');
    const compiled = byBase.get(basePath) ?? [];
    const path = rawPath.slice(basePath.length) || '/';
    // One trailing slash names the same resource, as API Gateway REST matches it.
    const resourcePath = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const method = req.method ?? 'GET';

    const publicRoute = publicRoutes.get(`${method} ${basePath}${resourcePath}`);
    if (publicRoute) return publicRoute.respond();

    const resource = compiled.find((c) => c.pattern.test(resourcePath));
    if (!resource) throw new GatewayAnswer('MISSING_AUTHENTICATION_TOKEN');
    const matched = resource.methods.get(method);
    if (!matched) return methodNotAllowedFor([...resource.methods.keys()], req.headers['content-type']);
    const handler = options.handlers[matched.operationId];
    if (!handler) throw new GatewayAnswer('DEFAULT_5XX');

    const arn = methodArn(method, resourcePath, basePath);
    const authorized = await authorize(req.headers.authorization, arn, basePath);
    // Every request of a key takes a token of its usage plan's bucket; only a refusal of the
    // gateway's own, which no handler's limiter sees, is throttled by it (usage-plan-throttle.ts).
    const hadToken = throttle.take(authorized.usageIdentifierKey ?? undefined, authorized.context?.plan);
    if (!policyAllows(authorized.policyDocument, arn))
      throw new GatewayAnswer(hadToken ? 'ACCESS_DENIED' : 'THROTTLED');

    const parameters = resource.pattern.exec(resourcePath)?.groups;
    const event = buildProxyEvent({
      route: matched,
      path,
      pathParameters: parameters
        ? Object.fromEntries(Object.entries(parameters).map(([n, v]) => [n, decode(v)]))
        : null,
      headers: req.rawHeaders,
      query,
      // As API Gateway passes it: base64 when the API's binaryMediaTypes cover its Content-Type.
      ...(gatewayEncodesRequestBody(req.headers['content-type'], binaryMediaTypes(matched))
        ? { body: body.bytes.toString('base64'), isBase64Encoded: true }
        : { body: body.bytes.toString('utf8') }),
      authorizer: authorized,
      requestId,
      now: receivedAt,
      sourceIp: req.socket.remoteAddress ?? '127.0.0.1',
      protocol: `HTTP/${req.httpVersion}`,
    });
    return matched.streaming
      ? invokeStreaming(handler as StreamingLambdaHandler, event, matched.function, res, requestId)
      : invoke(handler as ProxyHandler, event, matched);
  }

  const limits = options.receiveLimits ?? RECEIVE_LIMITS;
  const framing = new RequestFraming(limits);
  const server = createServer({ requireHostHeader: false, ...limits }, (req, res) => {
    const started = Date.now();
    const requestId = randomUUID();
    framing.track(req, res);
    route(req, res, requestId)
      .catch((error: unknown) => (error instanceof GatewayAnswer ? error.response : gatewayResponse('DEFAULT_5XX')))
      .then((response) => {
        // An answer before the whole request arrived (refused body, broken framing) ends the
        // connection: the rest of the request cannot be told from the next one.
        if (!('streamed' in response)) send(req, res, response, requestId, !req.complete);
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
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => framing.answer(error, socket));
  server.setTimeout(idleTimeoutMs(functions, limits));
  // An Expect header node cannot meet (anything but 100-continue) would get node's bare 417.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const response = badRequest(`The Expect header "${String(req.headers.expect).slice(0, 64)}" is not supported.`);
    send(req, res, response, randomUUID(), true);
  });
  return server;
}
