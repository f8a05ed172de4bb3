import { ERRORS, type ErrorCode } from '../../lib/contract/errors';
import {
  GATEWAY_ERROR_CODES,
  OPERATION_CONTRACTS,
  RATE_LIMIT_CODES,
  routeErrorCodes,
} from '../../lib/contract/operations';
import { ROUTES } from '../../lib/contract/routes';
import { headerOf, type RawResponse } from './raw-http';

const ROUTE_CODES = ROUTES.flatMap((route) => [...routeErrorCodes(route.operationId)]);

/** What a client may see from the order routes when every dependency is healthy: no 5xx. */
export const HEALTHY_STATUSES: ReadonlySet<number> = new Set(
  [
    ...Object.values(OPERATION_CONTRACTS).flatMap((c) => (c.success ? [c.success.status] : [])),
    ...[...ROUTE_CODES, ...GATEWAY_ERROR_CODES].map((code) => ERRORS[code].status),
  ].filter((status) => status < 500),
);

/** Answers given after the limiter ran for a valid key: each describes a rate-limit window. */
const LIMITED_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  ...Object.values(OPERATION_CONTRACTS).flatMap((c) => c.errors),
  ...RATE_LIMIT_CODES,
]);

const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'] as const;

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERRORS, code);
}

/** The code of an Error body, or undefined when the body is not one. */
export function errorCodeOf(response: RawResponse): ErrorCode | undefined {
  try {
    const code = (JSON.parse(response.body) as { code?: unknown }).code;
    return isErrorCode(code) ? code : undefined;
  } catch {
    return undefined;
  }
}

function isJsonArray(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text));
  } catch {
    return false;
  }
}

function errorBodyProblems(response: RawResponse): string[] {
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    return [`${response.status} body is not JSON: ${JSON.stringify(response.body.slice(0, 200))}`];
  }
  if (typeof body !== 'object' || body === null) return [`${response.status} body is not an object`];
  const { code, message, status } = body as Record<string, unknown>;
  const problems: string[] = [];
  if (Object.keys(body).sort().join() !== 'code,message,status')
    problems.push(`Error body fields: ${Object.keys(body).join()}`);
  if (!isErrorCode(code) || ERRORS[code].status !== response.status)
    problems.push(`code ${String(code)} with status ${response.status}`);
  if (status !== response.status) problems.push(`body status ${String(status)} on a ${response.status}`);
  if (typeof message !== 'string' || message === '') problems.push('empty message');
  return problems;
}

function rateLimitProblems(response: RawResponse, expected: boolean): string[] {
  const values = RATE_LIMIT_HEADERS.map((name) => headerOf(response, name));
  if (!expected) return values.some((v) => v !== undefined) ? [`${response.status} carries rate-limit headers`] : [];
  if (!values.every((v) => v !== undefined && /^\d+$/.test(v)))
    return [`${response.status} rate-limit headers: ${values.join(' / ')}`];
  const [limit, remaining] = values.map(Number) as [number, number, number];
  return remaining <= limit ? [] : [`X-RateLimit-Remaining ${remaining} above the limit ${limit}`];
}

/**
 * Everything decisions.md promises about one response of the order routes, as a list of what is
 * wrong with it (empty when nothing is), so a property or a load run can report every breach.
 */
export function responseProblems(response: RawResponse, allowed: ReadonlySet<number> = HEALTHY_STATUSES): string[] {
  const { status } = response;
  if (!allowed.has(status)) return [`undocumented status ${status}: ${response.body.slice(0, 200)}`];
  const problems: string[] = response.complete
    ? []
    : [`${status} cut off after ${response.body.length} body characters`];
  const code = status >= 400 ? errorCodeOf(response) : undefined;
  if (status >= 400) {
    if (!/^application\/json/.test(headerOf(response, 'content-type') ?? ''))
      problems.push(`${status} without a JSON content type`);
    problems.push(...errorBodyProblems(response));
  }
  if (status === 200) {
    if (!/^application\/json/.test(headerOf(response, 'content-type') ?? ''))
      problems.push('200 without a JSON content type');
    // A list cut short by a failure mid-stream must show as invalid JSON, never as a short array.
    if (!isJsonArray(response.body)) problems.push('200 body is not a JSON array');
  }
  if (status === 204 && response.body !== '') problems.push('204 with a body');
  if (status === 401 && headerOf(response, 'www-authenticate') !== 'Bearer')
    problems.push('401 without WWW-Authenticate: Bearer');
  if (status === 429 || status === 503) {
    const retryAfter = headerOf(response, 'retry-after') ?? '';
    if (!/^\d+$/.test(retryAfter) || Number(retryAfter) < 1)
      problems.push(`${status} Retry-After ${JSON.stringify(retryAfter)}`);
  }
  if (status !== 503) {
    const limited = status === 200 || status === 204 || (code !== undefined && LIMITED_CODES.has(code));
    problems.push(...rateLimitProblems(response, limited));
  }
  return problems;
}
