import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import httpErrorHandler from '@middy/http-error-handler';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { HttpError } from '@middy/util';
import type { Readable, Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorJson, errorResponse, ERRORS, SERVICE_UNAVAILABLE_ANSWER } from '../contract/errors';
import { routeErrorCodes } from '../contract/operations';
import { logger } from '../commons/logger';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { DEADLINE_MARGIN_MS, timedDeadline, type Deadline, type RequestDeadline } from '../commons/deadline';
import { SYNC_TIMING } from '../contract/sync';
import { callerFromAuthorizerContext, type Caller } from '../core/access/caller';
import type { RateLimiter } from '../stores/rate-limiter';
import { deprecationHeaders, type Route } from '../contract/routes';
import { MissingCallerError, toHttpError } from './http-errors';
import { rateLimit } from './rate-limit';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult;
/** A streamed result: the status and headers go first, then the body as it is produced. */
export type StreamingApiResult = Omit<ApiResult, 'body'> & { body: string | Readable };
/** What `awslambda.streamifyResponse` makes: the runtime passes the response stream second. */
export type StreamingLambdaHandler = (event: ApiEvent, responseStream: Writable, context: Context) => Promise<void>;
/**
 * A route's work. `deadline` is the request's, from the Lambda context (none when the context gives
 * no remaining time): every DynamoDB call the work makes carries it.
 */
export type ApiRouteHandler<R = ApiResult> = (
  event: ApiEvent,
  caller: Caller,
  context: Context,
  deadline: Deadline | undefined,
) => Promise<R>;

export interface ApiHandlerDeps {
  /** The deadline's timer; the real one unless a test runs on a virtual clock. */
  timers?: Timers;
  /**
   * How long after it ended an unanswered write may still land: every write of a request ends this
   * long before the request's answer. The declared one (SYNC_TIMING.unansweredLandingMs) by default.
   */
  landingMs?: number;
  /** `giveBack` lets a route's own refusal (TOO_MANY_LISTINGS) cost no slot; stand-ins may leave it out. */
  limiter: Pick<RateLimiter, 'admit' | 'now'> & Partial<Pick<RateLimiter, 'giveBack'>>;
}

const callers = new WeakMap<ApiEvent, Caller | undefined>();
/** Each request's deadline, by request: set before the middleware runs, read by the limiter and the route. */
const deadlines = new WeakMap<ApiEvent, RequestDeadline>();
const deadlineOf = (event: ApiEvent): Deadline | undefined => deadlines.get(event);

/** The caller the authorizer context names, read from the event once per request. */
function callerIn(event: ApiEvent): Caller | undefined {
  if (!callers.has(event)) callers.set(event, callerFromAuthorizerContext(event.requestContext?.authorizer));
  return callers.get(event);
}

function callerOf(request: { event: ApiEvent }): Caller {
  const caller = callerIn(request.event);
  if (!caller) throw new MissingCallerError('No authorizer context');
  return caller;
}

function logHandledError(error: unknown): void {
  const status = (error as Partial<HttpError>).statusCode;
  if (typeof status === 'number' && status < 500) {
    logger.info('request refused', { status });
  } else {
    logger.error('request failed', error as Error);
  }
}

/**
 * Sets this invocation's log keys when it starts, replacing the previous invocation's. They are
 * not cleared when the handler returns: a streamed body is still being written after middy's
 * `after` has run, and what is logged meanwhile belongs to this request.
 */
function requestLogKeys(request: { event: ApiEvent }): void {
  logger.resetKeys();
  logger.appendKeys({ apiRequestId: request.event.requestContext?.requestId, keyId: callerIn(request.event)?.keyId });
}

/**
 * The middleware stack of every order route, middleware first and handler last. Error mapping
 * runs first on the way out (domain error to HTTP error), then http-error-handler writes the
 * Error body, then the rate-limit headers and route headers are added to whatever response
 * resulted. The limiter runs before the handler, so a 401 or 429 is an ordinary response even on
 * a streamed route.
 */
function withApiMiddleware<R extends { statusCode: number; headers?: ApiResult['headers'] }>(
  route: Route,
  deps: ApiHandlerDeps,
  handler: middy.MiddyfiedHandler<ApiEvent, R, Error, Context>,
  handle: ApiRouteHandler<R>,
  workCalls: number,
) {
  type Req = middy.Request<ApiEvent, R, Error, Context>;
  const routeHeaders = deprecationHeaders(route);
  const errorCodes = routeErrorCodes(route.operationId);
  // A 401 is the same answer whoever refuses the key (the gateway, or the limiter for a revoked
  // key the authorizer cache still admits): it describes no route, as the gateway's cannot.
  const addRouteHeaders = (request: Req): void => {
    if (request.response && request.response.statusCode !== ERRORS.UNAUTHORIZED.status)
      request.response.headers = { ...request.response.headers, ...routeHeaders };
  };
  return handler
    .use(injectLambdaContext(logger))
    .use({ before: requestLogKeys })
    .use({ after: addRouteHeaders, onError: addRouteHeaders })
    .use(
      rateLimit<R>(deps.limiter, callerOf, {
        marginMs: DEADLINE_MARGIN_MS + landingMsOf(deps),
        workCalls,
        deadlineOf,
      }),
    )
    .use(httpErrorHandler({ logger: logHandledError, fallbackMessage: errorJson('INTERNAL_ERROR') }))
    .use({
      onError: (request: Req) => {
        const mapped = toHttpError(request.error, errorCodes);
        if (mapped) request.error = mapped;
      },
    })
    .handler((event, context) => handle(event, callerOf({ event }), context, deadlineOf(event)));
}

const landingMsOf = (deps: ApiHandlerDeps): number => deps.landingMs ?? SYNC_TIMING.unansweredLandingMs;

/**
 * Answers 503 SERVICE_UNAVAILABLE just before the Lambda deadline if the stack has not answered:
 * the limiter's write and the order's update (which retries a slow DynamoDB within bounds), one
 * after the other, could outlast the function, and then API Gateway, not the service, would answer.
 * The request's deadline (its abort signal) fires first, before the 503 is written, and again once
 * any answer is given: Lambda freezes the environment after the answer and may thaw it much later,
 * and nothing of this request may be sent then (docs/design.md#a-503-is-not-followed-by-the-change).
 */
function withDeadline(
  handler: (event: ApiEvent, context: Context) => Promise<ApiResult>,
  timers: Timers,
  landingMs: number,
) {
  return async (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const remaining = context.getRemainingTimeInMillis?.();
    if (remaining === undefined) return handler(event, context);
    let atDeadline: (answer: ApiResult) => void = () => undefined;
    const answered = new Promise<ApiResult>((resolve) => (atDeadline = resolve));
    const deadline = timedDeadline(timers, Math.max(0, remaining - DEADLINE_MARGIN_MS), landingMs, () => {
      logger.error('request abandoned at the function deadline');
      atDeadline(errorResponse(SERVICE_UNAVAILABLE_ANSWER));
    });
    deadlines.set(event, deadline);
    try {
      const result = await Promise.race([handler(event, context), answered]);
      // A failure is answered once every write that went unanswered may have landed: never before it.
      if (result.statusCode >= 500) await deadline.settled();
      return result;
    } finally {
      deadline.stop();
      deadline.answered();
    }
  };
}

/** `workCalls`: the DynamoDB calls the route's work makes once admitted (the limiter's time budget). */
export function apiHandler(route: Route, deps: ApiHandlerDeps, handle: ApiRouteHandler, workCalls = 0) {
  return withDeadline(
    withApiMiddleware(route, deps, middy<ApiEvent, ApiResult, Error, Context>(), handle, workCalls),
    deps.timers ?? REAL_TIMERS,
    landingMsOf(deps),
  );
}

type HeadRequest = { event: ApiEvent; response: { statusCode: number } | undefined };

/**
 * A streamed response is answered when its head goes, before its first byte: a 5XX head waits
 * until every write of the request that went unanswered may have landed, and any head ends the
 * request's deadline (nothing of the limiter's or the lease's is sent after it). Outermost, so it
 * runs last, once the status is known.
 */
async function headGoes(request: HeadRequest): Promise<void> {
  const deadline = deadlines.get(request.event);
  if (!deadline) return;
  if ((request.response?.statusCode ?? 500) >= 500) await deadline.settled();
  deadline.answered();
}

const answeredAtHead = { after: headGoes, onError: headGoes };

/**
 * The same stack in Lambda's response-streaming mode: API Gateway (response transfer mode
 * STREAM) passes the bytes on as the handler writes them. The request's deadline covers what comes
 * before the first byte (the limiter's write, the listing's lease): answered by the function's
 * timeout less the deadline margin, it ends when the head goes; the body is the listing's own
 * (lib/edge/listing-run.ts) and carries none.
 */
export function streamingApiHandler(
  route: Route,
  deps: ApiHandlerDeps,
  handle: ApiRouteHandler<StreamingApiResult>,
  workCalls = 0,
): StreamingLambdaHandler {
  const streamified = middy<ApiEvent, StreamingApiResult, Error, Context>({
    executionMode: executionModeStreamifyResponse,
  }).use(answeredAtHead);
  // middy's types describe the buffered signature; streamified, the runtime calls it like this.
  const handler = withApiMiddleware(route, deps, streamified, handle, workCalls) as unknown as StreamingLambdaHandler;
  const timers = deps.timers ?? REAL_TIMERS;
  return async (event, responseStream, context) => {
    const remaining = context.getRemainingTimeInMillis?.();
    if (remaining === undefined) return handler(event, responseStream, context);
    const deadline = timedDeadline(timers, Math.max(0, remaining - DEADLINE_MARGIN_MS), landingMsOf(deps));
    deadlines.set(event, deadline);
    try {
      await handler(event, responseStream, context);
    } finally {
      deadline.stop();
      deadline.answered();
    }
  };
}
