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
export const ACCEPT = 'Accept';
/**
 * The Vary of a buffered compressed body (v2's pages): its coding follows Accept-Encoding, and
 * whether it may be compressed at all follows Accept (lib/edge/encoded-body.ts).
 */
export const BUFFERED_ENCODED_VARY = `${ACCEPT_ENCODING}, ${ACCEPT}`;

/** The codings the service can send, in its own order of preference (README: brotli measured better per CPU second). */
export const CONTENT_CODINGS = ['br', 'gzip'] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];
