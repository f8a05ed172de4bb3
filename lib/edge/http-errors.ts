import { createError, type HttpError } from '@middy/util';
import {
  errorJson,
  ERRORS,
  SERVICE_UNAVAILABLE_ANSWER,
  UNAUTHORIZED_ANSWER,
  type ErrorAnswer,
  type ErrorCode,
} from '../contract/errors';
import type { RateLimitCode } from '../contract/operations';
import {
  InvalidOrderIdError,
  ListingTooLargeUncompressedError,
  OrderAlreadyShippedError,
  OrderNotFoundError,
} from '../core/orders/order-errors';
import { InvalidPetIdError, PetNotFoundError } from '../core/pets/pet-errors';
import { StageListingsFullError, TooManyListingsError } from '../stores/listings-in-flight';
import { isDependencyFailure } from '../stores/dependency-failure';
import { KeyRevokedError, MinutePassedError, NoTimeToServeError } from '../core/limiter/limit-errors';
import { InvalidCursorError, InvalidQueryError } from '../core/sync/sync-errors';

/** No authorizer context reached the handler: the request is treated as unauthenticated. */
export class MissingCallerError extends Error {
  override readonly name = 'MissingCallerError';
}

/** The limiter refused the request; thrown before the handler runs. */
export class RateLimitRejectedError extends Error {
  override readonly name = 'RateLimitRejectedError';
  constructor(
    readonly code: RateLimitCode,
    readonly retryAfterSeconds: number,
  ) {
    super(code);
  }
}

/** An HTTP error whose body is the Error record; http-error-handler writes it as JSON. */
function httpError({ code, headers, message }: ErrorAnswer, cause?: unknown): HttpError {
  const error = createError(ERRORS[code].status, errorJson(code, message), { expose: true, cause });
  error.headers = { ...headers };
  return error;
}

/** The answer an error gets, or undefined for anything unknown. */
function answerTo(error: unknown): ErrorAnswer | undefined {
  if (error instanceof InvalidOrderIdError) return { code: 'INVALID_ORDER_ID', headers: {} };
  if (error instanceof OrderNotFoundError) return { code: 'ORDER_NOT_FOUND', headers: {} };
  if (error instanceof InvalidPetIdError) return { code: 'INVALID_PET_ID', headers: {} };
  if (error instanceof PetNotFoundError) return { code: 'PET_NOT_FOUND', headers: {} };
  if (error instanceof OrderAlreadyShippedError) return { code: 'ORDER_ALREADY_SHIPPED', headers: {} };
  if (error instanceof ListingTooLargeUncompressedError) return { code: 'LISTING_TOO_LARGE_UNCOMPRESSED', headers: {} };
  if (error instanceof TooManyListingsError)
    return { code: 'TOO_MANY_LISTINGS', headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  if (error instanceof InvalidQueryError) return { code: 'INVALID_QUERY', headers: {}, message: error.message };
  if (error instanceof InvalidCursorError) return { code: 'INVALID_CURSOR', headers: {} };
  // A revoked key whose authorization API Gateway still caches: refused as the authorizer would.
  if (error instanceof MissingCallerError || error instanceof KeyRevokedError) return UNAUTHORIZED_ANSWER;
  // The stage runs as many listings as it may: a capacity refusal, not the key's doing.
  if (error instanceof StageListingsFullError) return SERVICE_UNAVAILABLE_ANSWER;
  if (error instanceof RateLimitRejectedError)
    return { code: error.code, headers: { 'Retry-After': String(error.retryAfterSeconds) } };
  // The limiter's replies came too late to count the request in its minute, or to serve it before
  // the deadline: DynamoDB was slow.
  if (isDependencyFailure(error) || error instanceof MinutePassedError || error instanceof NoTimeToServeError)
    return SERVICE_UNAVAILABLE_ANSWER;
  return undefined;
}

/**
 * Domain errors become HTTP statuses here, at the edge, and nowhere else, limited to the codes
 * the route declares (`routeErrorCodes`). Anything else is left alone and becomes the 500
 * INTERNAL_ERROR fallback, with no internal detail in the body.
 */
export function toHttpError(error: unknown, codes: ReadonlySet<ErrorCode>): HttpError | undefined {
  const answer = answerTo(error);
  return answer && codes.has(answer.code) ? httpError(answer, error) : undefined;
}
