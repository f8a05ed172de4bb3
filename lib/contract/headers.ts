// Header names the interface promises, read by the middleware that writes them and by the
// OpenAPI document that describes them.

export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
} as const;

/** Content negotiation of a compressible body (listOrders). */
export const ACCEPT_ENCODING = 'Accept-Encoding';
export const CONTENT_ENCODING = 'Content-Encoding';
export const VARY = 'Vary';

/** The codings the service can send, in its own order of preference (README: brotli measured better per CPU second). */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];
