// The error catalogue, declared once: handlers, the local gateway, the CDK gateway responses and
// the OpenAPI document all read it. Statuses live here, at the edge; domain code throws the
// domain errors of its own module and never sees a status.

export const ERRORS = {
  UNAUTHORIZED: { status: 401, message: 'The API key is missing or invalid.' },
  INVALID_ORDER_ID: {
    status: 400,
    message: 'orderId must be a decimal integer in the int64 range.',
  },
  INVALID_PET_ID: {
    status: 400,
    message: 'petId must be a decimal integer in the int64 range.',
  },
  INVALID_QUERY: {
    status: 400,
    message: 'A query parameter is unknown or has a value it cannot take.',
  },
  INVALID_CURSOR: {
    status: 400,
    message: 'The cursor was not issued by this API, was altered, or is used with other filters than its own.',
  },
  INVALID_WEBHOOK_ENDPOINT: {
    status: 400,
    message:
      'The request body is not a webhook endpoint: not JSON, too large, a field unknown or of the wrong type, or a value out of bounds.',
  },
  WEBHOOK_URL_REFUSED: {
    status: 400,
    message:
      'Events may not go to this URL: it must be https, carry no user or password, and its host must not resolve to a private, loopback, link-local, metadata or other non-public address.',
  },
  /** Gateway-level refusal of a request it cannot pass on (for example, too large). */
  BAD_REQUEST: { status: 400, message: 'The request was malformed or too large.' },
  INSUFFICIENT_SCOPE: {
    status: 403,
    message: 'This API key is read-only: it may call GET operations only. Nothing was changed.',
  },
  ORDER_NOT_FOUND: { status: 404, message: 'The order cannot be found.' },
  PET_NOT_FOUND: { status: 404, message: 'The pet cannot be found.' },
  WEBHOOK_ENDPOINT_NOT_FOUND: { status: 404, message: 'This API key has no webhook endpoint with this id.' },
  NOT_FOUND: { status: 404, message: 'No such resource.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this resource.' },
  LISTING_TOO_LARGE_UNCOMPRESSED: {
    status: 406,
    message:
      'The store is too large to list uncompressed within the 200 MB a response can carry. Send Accept-Encoding: gzip (or br) and decompress the body.',
  },
  ORDER_ALREADY_SHIPPED: {
    status: 409,
    message: 'The order has already shipped and cannot be cancelled.',
  },
  TOO_MANY_WEBHOOK_ENDPOINTS: {
    status: 409,
    message: 'This API key already has as many webhook endpoints as it may: delete one first.',
  },
  RATE_LIMITED: { status: 429, message: 'Per-minute rate limit exceeded. Retry after the time in Retry-After.' },
  QUOTA_EXCEEDED: { status: 429, message: 'Daily quota exceeded. Retry after the time in Retry-After.' },
  KEY_TEMPORARILY_BANNED: {
    status: 429,
    message: 'This API key is temporarily banned for ignoring rate limits. Retry after the time in Retry-After.',
  },
  TOO_MANY_LISTINGS: {
    status: 429,
    message:
      'This API key already has as many listings in progress as its plan allows. Retry after the time in Retry-After.',
  },
  /** The web ACL in front of the stages: too many requests from one client address, whatever their keys. */
  ADDRESS_RATE_LIMITED: {
    status: 429,
    message:
      'Too many requests from this network address, whatever their API keys. Retry after the time in Retry-After.',
  },
  INTERNAL_ERROR: { status: 500, message: 'An internal error occurred.' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    message: 'A dependency is unavailable. Retry after the time in Retry-After.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  status: number;
}

export const ERROR_CODES = Object.keys(ERRORS) as ErrorCode[];

/**
 * An error that names the code it is answered with, declared with its class: domain code throws it
 * and never sees a status; the edge (lib/edge/http-errors.ts) answers it from ERRORS by its code
 * alone. The code is not enumerable, so a logged error shows what it showed before it had one.
 */
export abstract class CodedError extends Error {
  declare readonly code: ErrorCode;
  /** Seconds the client should wait before it retries, sent as Retry-After (a refusal that says). */
  declare readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string) {
    super(message);
    Object.defineProperty(this, 'code', { value: code });
  }

  /** The answer's message, when the catalogue's is too general (which query parameter, say). */
  answerMessage(): string | undefined {
    return undefined;
  }
}

export function errorBody(code: ErrorCode, message: string = ERRORS[code].message): ErrorBody {
  return { code, message, status: ERRORS[code].status };
}

/** The JSON text of an Error body; the only way an error reaches a response. */
export function errorJson(code: ErrorCode, message?: string): string {
  return JSON.stringify(errorBody(code, message));
}

/** RFC 6750: every 401 names the scheme it wants. */
export const WWW_AUTHENTICATE = 'Bearer';

/** RFC 6750 3.1: a valid key whose scope does not cover the request. */
export const INSUFFICIENT_SCOPE_WWW_AUTHENTICATE = 'Bearer error="insufficient_scope"';

/** Seconds a client should wait after a 503 before it retries. */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** An error answer: its code and the headers that always come with it. */
export interface ErrorAnswer {
  code: ErrorCode;
  headers: Record<string, string>;
  /** What went wrong when the catalogue's message is too general (which query parameter, say). */
  message?: string;
}

/** The 401, whoever refuses the key: the gateway, the authorizer or a handler without a caller. */
export const UNAUTHORIZED_ANSWER: ErrorAnswer = {
  code: 'UNAUTHORIZED',
  headers: { 'WWW-Authenticate': WWW_AUTHENTICATE },
};

/** The 403 of a key whose scope leaves the method out: the gateway gives it, on the authorizer's policy. */
export const INSUFFICIENT_SCOPE_ANSWER: ErrorAnswer = {
  code: 'INSUFFICIENT_SCOPE',
  headers: { 'WWW-Authenticate': INSUFFICIENT_SCOPE_WWW_AUTHENTICATE },
};

/** The 503, whoever gives it: a failed dependency, the function deadline or the gateway. */
export const SERVICE_UNAVAILABLE_ANSWER: ErrorAnswer = {
  code: 'SERVICE_UNAVAILABLE',
  headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
};

export interface PlainResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

/** An error answer as a whole response: its status, JSON, its headers and the Error body. */
export function errorResponse(answer: ErrorAnswer): PlainResponse {
  return {
    statusCode: ERRORS[answer.code].status,
    headers: { 'Content-Type': 'application/json', ...answer.headers },
    body: errorJson(answer.code),
  };
}
