/**
 * Authorizer settings shared by the CDK stack and the local gateway, so both behave alike.
 * A revoked key keeps working for at most this long, because API Gateway caches the
 * authorizer's answer per token.
 */
export const AUTHORIZER_CACHE_TTL_SECONDS = 60;
