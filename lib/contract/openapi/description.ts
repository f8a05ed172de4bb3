import { ADDRESS_LIMIT, ADDRESS_PER_MINUTE_BUDGET, ADDRESS_RETRY_AFTER_SECONDS } from '../address-limit';
import { AUTHORIZER_CACHE_TTL_SECONDS } from '../auth';
import { ERRORS, ERROR_CODES, type ErrorCode } from '../errors';
import { RATE_LIMIT_HEADERS } from '../headers';
import { BAN, MAX_CUSTOM_LIMITS, PLAN_LIMITS } from '../plans';
import { BASE_PATH } from '../routes';

const capitalised = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
const count = (n: number) => n.toLocaleString('en-US');

/** The plan table, from the same declaration the limiter reads. */
export function planTable(): string {
  const rows = Object.entries(PLAN_LIMITS).map(
    ([plan, limits]) => `| ${capitalised(plan)} | ${count(limits.perMinute)} | ${count(limits.perDay)} |`,
  );
  return [
    '| Plan | Requests per minute | Requests per day |',
    '|---|---|---|',
    ...rows,
    `| Enterprise | Custom (up to ${count(MAX_CUSTOM_LIMITS.perMinute)}) | Custom (up to ${count(MAX_CUSTOM_LIMITS.perDay)}) |`,
  ].join('\n');
}

export function rateLimitsSection(): string {
  const banMinutes = BAN.durationSeconds / 60;
  return [
    '## Rate limits',
    'Limits are per API key, in two fixed windows: the calendar minute and the calendar day, both in UTC.',
    planTable(),
    `Every response to a request with a valid key carries \`${RATE_LIMIT_HEADERS.limit}\`, \`${RATE_LIMIT_HEADERS.remaining}\` and \`${RATE_LIMIT_HEADERS.reset}\` (Unix seconds). They describe the window that runs out first. A 401 carries none of them, and a 5xx carries them only when the limiter ran before the failure.`,
    'Over a limit the answer is 429 with `Retry-After` in whole seconds. Wait that long, and otherwise back off exponentially with jitter. Rejected requests do not use up the windows.',
    `A key that sends, within one minute, more rejected requests than ${BAN.rejectedPerMinuteFactor === 1 ? 'its' : `${BAN.rejectedPerMinuteFactor} times its`} per-minute limit is banned for ${banMinutes} minutes (429 \`KEY_TEMPORARILY_BANNED\`, \`Retry-After\` the seconds left).`,
    "API Gateway usage plans back these limits up at the edge. They are never stricter than the table, so in normal use the service's own limiter answers, with its headers.",
    `In front of the gateway, requests are also counted per client network address, whatever their keys: more than ${count(ADDRESS_LIMIT.limit)} from one address within ${count(ADDRESS_LIMIT.windowSeconds)} seconds are answered 429 \`ADDRESS_RATE_LIMITED\` with \`Retry-After: ${ADDRESS_RETRY_AFTER_SECONDS}\` and no rate-limit headers, until the address slows down. That is more than keys whose per-minute limits add up to ${count(ADDRESS_PER_MINUTE_BUDGET)} can send without being banned; a client whose keys' limits add up to more (an enterprise key above ${count(ADDRESS_PER_MINUTE_BUDGET)} a minute, say) must spread its requests over several addresses.`,
  ].join('\n\n');
}

/** The error table, of the codes one document's answers can carry. */
export function errorsSection(codes: readonly ErrorCode[] = ERROR_CODES): string {
  const rows = codes.map((code) => `| \`${code}\` | ${ERRORS[code].status} | ${ERRORS[code].message} |`);
  return [
    '## Errors',
    'Every error response has `Content-Type: application/json` and the body `{"code", "message", "status"}` (the `Error` schema), whoever answers it.',
    ['| Code | Status | Meaning |', '|---|---|---|', ...rows].join('\n'),
  ].join('\n\n');
}

export function gatewaySection(): string {
  return [
    '## Answers of the gateway itself',
    'These come before any operation runs. They need no API key and carry no rate-limit headers. All are listed in `x-gateway-responses`; the 400 and the 429, which can answer a request for any operation, are listed under each operation too.',
    `- A path that is not listed below (inside or outside \`${BASE_PATH}\`): 404 \`NOT_FOUND\`.`,
    '- A listed path with a method it does not have: 405 `METHOD_NOT_ALLOWED`, with `Allow` naming the methods it has.',
    '- A request the gateway cannot pass on (for example, too large): 400 `BAD_REQUEST`.',
    `- Any request from an address that sent too many (see Rate limits): 429 \`ADDRESS_RATE_LIMITED\`, with \`Retry-After: ${ADDRESS_RETRY_AFTER_SECONDS}\`.`,
  ].join('\n');
}

export function lifecycleSection(): string {
  return [
    '## Versioning and lifecycle',
    `The major version is in the path prefix \`${BASE_PATH}\`. Changes are recorded in the changelog (CHANGELOG.md). Filtering and pagination of the order list are planned for v2.`,
    'A deprecated operation is marked `deprecated` here, and each of its responses carries `Deprecation` (RFC 9745, `@<Unix seconds>`) and `Sunset` (RFC 8594, an HTTP date after which it stops working). An operation that is not yet stable carries `x-stability: experimental` or `x-stability: beta`, and may change without a new major version.',
  ].join('\n\n');
}

export function apiDescription(codes: readonly ErrorCode[] = ERROR_CODES): string {
  return [
    'List every order in the store and cancel a pending one.',
    '## Authentication',
    `Every operation needs \`Authorization: Bearer <API key>\` (the scheme word in any case). A missing, malformed, unknown or revoked key is 401 \`UNAUTHORIZED\` with \`WWW-Authenticate: Bearer\`. A revoked key is refused from its next request after the revoke, even while API Gateway still caches its authorization (${AUTHORIZER_CACHE_TTL_SECONDS} seconds).`,
    '## Order ids',
    '`id`, `petId` and `orderId` are int64. They are written as exact JSON integers; values above 2^53 (9007199254740992) lose digits in a JavaScript number, so parse them losslessly.',
    "A client generated from this document as is types them as `number` and parses the body with `JSON.parse`, which turns 9007199254740993 into 9007199254740992 and 9223372036854775807 into 9223372036854776000. Generate int64 as `string` instead, read the body as text (openapi-fetch: `parseAs: 'text'`) and parse it with a lossless JSON parser that gives `id` and `petId` as strings, and pass `orderId` as a string.",
    rateLimitsSection(),
    errorsSection(codes),
    gatewaySection(),
    lifecycleSection(),
  ].join('\n\n');
}
