// What the gateway itself answers, before or instead of a handler, declared once: the CDK stack
// turns each entry into an API Gateway gateway response, and the local gateway answers the same
// way. Keys are API Gateway's gateway response types.

import {
  errorResponse,
  INSUFFICIENT_SCOPE_ANSWER,
  SERVICE_UNAVAILABLE_ANSWER,
  UNAUTHORIZED_ANSWER,
  type ErrorAnswer,
  type PlainResponse,
} from './errors';

export type { PlainResponse } from './errors';

const unauthorized = UNAUTHORIZED_ANSWER;
const unavailable = SERVICE_UNAVAILABLE_ANSWER;

export const GATEWAY_RESPONSES = {
  /** Missing header, a header that fails the validation pattern, or the authorizer's refusal. */
  UNAUTHORIZED: unauthorized,
  /**
   * The authorizer refuses a bad key with 401; its policy denies only what the key's scope leaves
   * out (a read-only key's DELETE), so a denial is that 403.
   */
  ACCESS_DENIED: INSUFFICIENT_SCOPE_ANSWER,
  /** The usage identifier matched no API Gateway key: a key not (or no longer) bound to a plan. */
  INVALID_API_KEY: unauthorized,
  /** API Gateway's answer for an unknown path. */
  MISSING_AUTHENTICATION_TOKEN: { code: 'NOT_FOUND', headers: {} },
  RESOURCE_NOT_FOUND: { code: 'NOT_FOUND', headers: {} },
  /** Usage-plan backstop; the service's own limiter answers before it in normal use. */
  THROTTLED: { code: 'RATE_LIMITED', headers: { 'Retry-After': '1' } },
  QUOTA_EXCEEDED: { code: 'QUOTA_EXCEEDED', headers: { 'Retry-After': '3600' } },
  /** The authorizer failed (for example DynamoDB unreachable): the key was not judged. */
  AUTHORIZER_FAILURE: unavailable,
  AUTHORIZER_CONFIGURATION_ERROR: unavailable,
  INTEGRATION_TIMEOUT: unavailable,
  /**
   * Lambda refused the invocation: above all, list-orders' reserved concurrency is full (Lambda's
   * throttle). A client should come back shortly, not report a bug.
   */
  INTEGRATION_FAILURE: unavailable,
  /**
   * Only the 405 methods have request templates, so only they refuse a content type they have no
   * template for: that refusal is the 405 it stands for. A gateway response cannot vary by path, so
   * this one carries no Allow header.
   */
  UNSUPPORTED_MEDIA_TYPE: { code: 'METHOD_NOT_ALLOWED', headers: {} },
  DEFAULT_4XX: { code: 'BAD_REQUEST', headers: {} },
  DEFAULT_5XX: { code: 'INTERNAL_ERROR', headers: {} },
} as const satisfies Record<string, ErrorAnswer>;

export type GatewayResponseType = keyof typeof GATEWAY_RESPONSES;

export function gatewayResponse(type: GatewayResponseType): PlainResponse {
  return errorResponse(GATEWAY_RESPONSES[type]);
}

/**
 * The answer to a method that a routed path does not have, given by the gateway itself (no key
 * needed, no function invoked): 405 with an Error body and `Allow` naming the path's methods.
 */
export function methodNotAllowed(allowed: readonly string[]): PlainResponse {
  return errorResponse({ code: 'METHOD_NOT_ALLOWED', headers: { Allow: allowed.join(', ') } });
}

/**
 * The content types the 405 methods map to their answer. Any other is refused by API Gateway as
 * UNSUPPORTED_MEDIA_TYPE, whose gateway response is the same 405 Error body (without Allow). With
 * passthrough instead, a body API Gateway cannot read a status code from would make the MOCK fail
 * with a 500.
 */
export const METHOD_NOT_ALLOWED_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/xml',
  'text/xml',
  'text/html',
  'text/csv',
  'application/octet-stream',
] as const;

/**
 * The 405 for a request with this Content-Type, as the deployed gateway gives it: a listed (or
 * absent) type reaches the 405 method and gets `Allow`; any other is refused before it as
 * UNSUPPORTED_MEDIA_TYPE, the same Error body without `Allow`.
 */
export function methodNotAllowedFor(allowed: readonly string[], contentType: string | undefined): PlainResponse {
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  const mapped =
    mediaType === undefined ||
    mediaType === '' ||
    (METHOD_NOT_ALLOWED_CONTENT_TYPES as readonly string[]).includes(mediaType);
  return mapped ? methodNotAllowed(allowed) : gatewayResponse('UNSUPPORTED_MEDIA_TYPE');
}
