/**
 * Authorizer settings shared by the CDK stack and the local gateway, so both behave alike.
 * API Gateway caches the authorizer's answer per token this long. A revoked key does not live on in
 * the cache: `keys revoke` also marks the key's limiter items for this long (plus clock skew), and
 * the admitting write every request makes refuses it (lib/core/limiter/limiter.ts).
 */
export const AUTHORIZER_CACHE_TTL_SECONDS = 60;
