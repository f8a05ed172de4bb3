import { createError, type HttpError } from '@middy/util';
import { errorJson, type ErrorCode, ERRORS, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, WWW_AUTHENTICATE } from '../contract/errors';
import { InvalidOrderIdError, OrderAlreadyShippedError, OrderNotFoundError } from '../orders/errors';
import { isDependencyFailure } from '../aws/dependency-failure';

/** No authorizer context reached the handler: the request is treated as unauthenticated. */
export class MissingCallerError extends Error {
  override readonly name = 'MissingCallerError';
}

/** The limiter refused the request; thrown before the handler runs. */
export class RateLimitRejectedError extends Error {
  override readonly name = 'RateLimitRejectedError';
  constructor(
    readonly code: 'RATE_LIMITED' | 'QUOTA_EXCEEDED' | 'KEY_TEMPORARILY_BANNED',
    readonly retryAfterSeconds: number,
  ) {
    super(code);
  }
}

/** An HTTP error whose body is the Error record; http-error-handler writes it as JSON. */
export function httpError(code: ErrorCode, headers: Record<string, string> = {}, cause?: unknown): HttpError {
  const error = createError(ERRORS[code].status, errorJson(code), { expose: true, cause });
  error.headers = headers;
  return error;
}

/**
 * Domain errors become HTTP statuses here, at the edge, and nowhere else. Anything unknown is
 * left alone and becomes the 500 INTERNAL_ERROR fallback, with no internal detail in the body.
 */
export function toHttpError(error: unknown): HttpError | undefined {
  if (error instanceof InvalidOrderIdError) return httpError('INVALID_ORDER_ID', {}, error);
  if (error instanceof OrderNotFoundError) return httpError('ORDER_NOT_FOUND', {}, error);
  if (error instanceof OrderAlreadyShippedError) return httpError('ORDER_ALREADY_SHIPPED', {}, error);
  if (error instanceof MissingCallerError) {
    return httpError('UNAUTHORIZED', { 'WWW-Authenticate': WWW_AUTHENTICATE }, error);
  }
  if (error instanceof RateLimitRejectedError) {
    return httpError(error.code, { 'Retry-After': String(error.retryAfterSeconds) }, error);
  }
  if (isDependencyFailure(error)) {
    return httpError('SERVICE_UNAVAILABLE', { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) }, error);
  }
  return undefined;
}
