import { createError, type HttpError } from '@middy/util';
import {
  CodedError,
  errorJson,
  ERRORS,
  SERVICE_UNAVAILABLE_ANSWER,
  UNAUTHORIZED_ANSWER,
  type ErrorAnswer,
  type ErrorCode,
} from '../contract/errors';
import type { RateLimitCode } from '../contract/operations';
import { isDependencyFailure } from '../stores/dependency-failure';

/** No authorizer context reached the handler: the request is treated as unauthenticated. */
export class MissingCallerError extends CodedError {
  override readonly name = 'MissingCallerError';
  constructor(message: string) {
    super('UNAUTHORIZED', message);
  }
}

/** The limiter refused the request; thrown before the handler runs. */
export class RateLimitRejectedError extends CodedError {
  override readonly name = 'RateLimitRejectedError';
  declare readonly code: RateLimitCode;
  constructor(
    code: RateLimitCode,
    override readonly retryAfterSeconds: number,
  ) {
    super(code, code);
  }
}

/** An HTTP error whose body is the Error record; http-error-handler writes it as JSON. */
function httpError({ code, headers, message }: ErrorAnswer, cause?: unknown): HttpError {
  const error = createError(ERRORS[code].status, errorJson(code, message), { expose: true, cause });
  error.headers = { ...headers };
  return error;
}

/** Answers whose headers are the same whoever gives them: a 401 names its scheme, a 503 its wait. */
const FIXED_ANSWERS: Partial<Record<ErrorCode, ErrorAnswer>> = {
  UNAUTHORIZED: UNAUTHORIZED_ANSWER,
  SERVICE_UNAVAILABLE: SERVICE_UNAVAILABLE_ANSWER,
};

/** The answer an error gets, or undefined for anything unknown. */
function answerTo(error: unknown): ErrorAnswer | undefined {
  if (error instanceof CodedError) {
    const message = error.answerMessage();
    return (
      FIXED_ANSWERS[error.code] ?? {
        code: error.code,
        headers: error.retryAfterSeconds !== undefined ? { 'Retry-After': String(error.retryAfterSeconds) } : {},
        ...(message !== undefined ? { message } : {}),
      }
    );
  }
  // A dependency (DynamoDB) that failed, throttled or could not be reached.
  return isDependencyFailure(error) ? SERVICE_UNAVAILABLE_ANSWER : undefined;
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
