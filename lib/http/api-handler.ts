import middy from '@middy/core';
import httpErrorHandler from '@middy/http-error-handler';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { HttpError } from '@middy/util';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { errorJson } from '../errors';
import { logger } from '../logger';
import { callerFromAuthorizerContext, type CallerIdentity } from '../principal';
import type { RateLimiter } from '../rate-limiter';
import { deprecationHeaders, type Route } from '../routes';
import { MissingCallerError, toHttpError } from './edge-errors';
import { rateLimit } from './rate-limit-middleware';

export type ApiEvent = APIGatewayProxyEvent;
export type ApiResult = APIGatewayProxyResult;
export type ApiRouteHandler = (event: ApiEvent, caller: CallerIdentity, context: Context) => Promise<ApiResult>;

export interface ApiHandlerDeps {
  limiter: Pick<RateLimiter, 'admit'>;
}

type Request = middy.Request<ApiEvent, ApiResult, Error>;

function callerOf(request: Request): CallerIdentity {
  const caller = callerFromAuthorizerContext(request.event.requestContext?.authorizer);
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
 * The middleware stack of every order route, middleware first and handler last. Error mapping
 * runs first on the way out (domain error to HTTP error), then http-error-handler writes the
 * Error body, then the rate-limit headers and route headers are added to whatever response
 * resulted.
 */
export function apiHandler(route: Route, deps: ApiHandlerDeps, handle: ApiRouteHandler) {
  const routeHeaders = deprecationHeaders(route);
  const addRouteHeaders = (request: Request): void => {
    if (request.response) request.response.headers = { ...request.response.headers, ...routeHeaders };
  };
  return middy<ApiEvent, ApiResult, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({ after: addRouteHeaders, onError: addRouteHeaders })
    .use(rateLimit(deps.limiter, callerOf))
    .use(httpErrorHandler({ logger: logHandledError, fallbackMessage: errorJson('INTERNAL_ERROR') }))
    .use({
      onError: (request) => {
        const mapped = toHttpError(request.error);
        if (mapped) request.error = mapped;
      },
    })
    .handler((event, context) => {
      const caller = callerOf({ event } as Request);
      logger.appendKeys({ apiRequestId: event.requestContext?.requestId, keyId: caller.keyId });
      return handle(event, caller, context);
    });
}
