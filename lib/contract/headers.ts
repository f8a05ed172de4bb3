// Header names the interface promises, read by the middleware that writes them and by the
// OpenAPI document that describes them.

export const RATE_LIMIT_HEADERS = {
  limit: 'X-RateLimit-Limit',
  remaining: 'X-RateLimit-Remaining',
  reset: 'X-RateLimit-Reset',
} as const;
