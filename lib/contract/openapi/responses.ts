import {
  ERRORS,
  INSUFFICIENT_SCOPE_WWW_AUTHENTICATE,
  SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS,
  WWW_AUTHENTICATE,
  type ErrorCode,
} from '../errors';
import { RATE_LIMIT_HEADERS } from '../headers';
import type { OperationContract } from '../operation-contract';
import { errorExamples, errorResponseSchema, type JsonObject } from './schemas';
import { deprecationHeaders, type Route } from '../routes';

const JSON_MEDIA_TYPE = 'application/json';

function integerHeader(description: string, required: boolean, minimum: number, format = 'int64'): JsonObject {
  return { description, required, schema: { type: 'integer', format, minimum } };
}

/**
 * The limiter describes the window that runs out first. A 5xx raised before the limiter answered
 * (the authorizer failed, the integration timed out) has no window to describe.
 */
function rateLimitHeaders(
  required: boolean,
  when = required ? '' : ' Present when the rate limiter ran before the failure.',
): JsonObject {
  return {
    [RATE_LIMIT_HEADERS.limit]: integerHeader(
      `Requests allowed in the window that runs out first.${when}`,
      required,
      1,
    ),
    [RATE_LIMIT_HEADERS.remaining]: integerHeader(`Requests left in that window.${when}`, required, 0),
    [RATE_LIMIT_HEADERS.reset]: integerHeader(
      `Unix time, in seconds, at which that window resets.${when}`,
      required,
      0,
    ),
  };
}

/** Deprecated routes answer with these on every response the service itself writes. */
function routeHeaders(route: Route, required: boolean): JsonObject {
  const values = deprecationHeaders(route);
  const out: JsonObject = {};
  if (values.Deprecation !== undefined && route.deprecated) {
    out.Deprecation = {
      description: `RFC 9745: this operation is deprecated since ${route.deprecated.since} (Unix seconds after \`@\`).`,
      required,
      schema: { type: 'string', const: values.Deprecation },
    };
  }
  if (values.Sunset !== undefined && route.deprecated) {
    out.Sunset = {
      description: `RFC 8594: this operation stops working at ${route.deprecated.sunset}.`,
      required,
      schema: { type: 'string', const: values.Sunset },
    };
  }
  return out;
}

const retryAfter = (description: string): JsonObject => ({
  'Retry-After': integerHeader(description, true, 1, 'int32'),
});

/** Extra words for a status, beyond the messages of its codes. */
const STATUS_NOTES: Record<number, string> = {
  401: 'The `Authorization: Bearer <API key>` header is missing, uses another scheme, or carries a malformed, unknown or revoked key. No rate-limit headers: an unknown caller has no plan.',
  403: 'The API key is valid but read-only (created with `--scope read`), and this operation is not a GET. Refused before the rate limiter, so it uses up none of the limits and carries no rate-limit headers; nothing is changed.',
  429: "Over a rate limit: `RATE_LIMITED` (the minute window), `QUOTA_EXCEEDED` (the day window) or `KEY_TEMPORARILY_BANNED` (the key kept sending after 429s); on the listing, also `TOO_MANY_LISTINGS` (the key already has its plan's number of listings in progress); and `ADDRESS_RATE_LIMITED` (too many requests from the client's network address, whatever their keys). Wait `Retry-After` seconds before retrying. Requests the windows or the ban refuse do not use them up, nor does a `TOO_MANY_LISTINGS` refusal (the windows give its slot back); requests from an address over its limit are counted against it, blocked or not.",
  500: 'An unexpected failure. Safe to retry with exponential backoff: both operations are idempotent.',
  503: `A dependency failed or throttled. Retry after \`Retry-After\` seconds (usually ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS}).`,
};

/**
 * The headers of a status. `gatewayCodes` are the codes of that status the gateway answers before
 * the service runs: alone they carry no headers; mixed with the service's, what the service adds
 * is optional.
 */
function headersForStatus(
  status: number,
  route: Route,
  gatewayCodes: readonly ErrorCode[] = [],
  serviceCodes = true,
): JsonObject {
  if (!serviceCodes) return {};
  if (status === 401)
    return {
      'WWW-Authenticate': {
        description: 'RFC 6750: the scheme to use.',
        required: true,
        schema: { type: 'string', const: WWW_AUTHENTICATE },
      },
    };
  if (status === 403)
    return {
      'WWW-Authenticate': {
        description: 'RFC 6750 3.1: the key lacks the scope this operation needs.',
        required: true,
        schema: { type: 'string', const: INSUFFICIENT_SCOPE_WWW_AUTHENTICATE },
      },
    };
  const failure = status >= 500;
  const required = !failure && gatewayCodes.length === 0;
  const limits = gatewayCodes.length
    ? rateLimitHeaders(
        false,
        ` Absent with ${quoted(gatewayCodes)}, which the gateway answers before the limiter runs.`,
      )
    : rateLimitHeaders(required);
  const headers: JsonObject = { ...limits, ...routeHeaders(route, required) };
  if (status === 429)
    Object.assign(
      headers,
      retryAfter(
        'Seconds until the window (or the ban) that refused the request resets; for `TOO_MANY_LISTINGS`, a fixed wait before trying again (the end of a listing cannot be known in advance; the refusal used no slot); for `ADDRESS_RATE_LIMITED`, a fixed wait after which an address that sent nothing meanwhile is let through again.',
      ),
    );
  if (status === 503) Object.assign(headers, retryAfter('Seconds to wait before retrying.'));
  return headers;
}

export function errorResponse(
  codes: readonly ErrorCode[],
  status: number,
  headers: JsonObject,
  note?: string,
): JsonObject {
  const lines = codes.map((code) => `\`${code}\`: ${ERRORS[code].message}`);
  return {
    description: [note, ...lines].filter(Boolean).join('\n\n'),
    ...(Object.keys(headers).length ? { headers } : {}),
    content: { [JSON_MEDIA_TYPE]: { schema: errorResponseSchema(codes, status), examples: errorExamples(codes) } },
  };
}

function successResponse(route: Route, success: NonNullable<OperationContract['success']>): JsonObject {
  const response: JsonObject = {
    description: success.description,
    headers: { ...headersForStatus(success.status, route), ...success.headers },
  };
  if (success.schema) {
    response.content = {
      [JSON_MEDIA_TYPE]: { schema: success.schema, ...(success.example ? { example: success.example } : {}) },
    };
  }
  return response;
}

const quoted = (codes: readonly ErrorCode[]) => codes.map((code) => `\`${code}\``).join(' and ');

/** When the gateway answers each of its codes that can come to any request. */
const GATEWAY_WHY: Partial<Record<ErrorCode, string>> = {
  BAD_REQUEST: 'for example, headers too large',
  ADDRESS_RATE_LIMITED: "too many requests from the client's address",
};

function gatewayNote(gatewayCodes: readonly ErrorCode[], mixed: boolean): string {
  const what = mixed ? quoted(gatewayCodes) : 'this';
  const why = gatewayCodes.flatMap((code) => GATEWAY_WHY[code] ?? []).join('; ');
  return `The gateway answers ${what} itself, before the request reaches the operation${why ? ` (${why})` : ''}: no API key is checked and no rate-limit headers are sent.`;
}

/**
 * Every status an operation can answer, each with its body and headers: its own errors, those of
 * every route, and the gateway's answers that can come to any request.
 */
export function operationResponses(
  route: Route,
  contract: OperationContract,
  commonCodes: readonly ErrorCode[],
  gatewayCodes: readonly ErrorCode[],
): JsonObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...contract.errors, ...commonCodes, ...gatewayCodes]) {
    const status: number = ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: JsonObject = {};
  if (contract.success) responses[String(contract.success.status)] = successResponse(route, contract.success);
  for (const status of [...byStatus.keys()].sort((a, b) => a - b)) {
    const codes = byStatus.get(status) ?? [];
    const fromGateway = codes.filter((code) => gatewayCodes.includes(code));
    const fromService = fromGateway.length < codes.length;
    const note = [STATUS_NOTES[status], fromGateway.length ? gatewayNote(fromGateway, fromService) : undefined]
      .filter(Boolean)
      .join(' ');
    responses[String(status)] = errorResponse(
      codes,
      status,
      headersForStatus(status, route, fromGateway, fromService),
      note || undefined,
    );
  }
  return responses;
}
