// A buffered response's body in the coding the request accepts, as a Lambda proxy result carries
// it through API Gateway REST: a compressed body goes base64-encoded, and API Gateway decodes it
// to bytes for the client only when the request's first Accept media type matches the API's
// binaryMediaTypes (lib/contract/routes.ts, ENCODED_BODY_MEDIA_TYPES). A request it would not
// decode for gets the body uncompressed, never base64 text labelled gzip.
import { ACCEPT, ACCEPT_ENCODING, BUFFERED_ENCODED_VARY, CONTENT_ENCODING, VARY } from '../contract/headers';
import { ENCODED_BODY_MEDIA_TYPES } from '../contract/routes';
import { chooseContentCoding, requestHeader, type ChosenCoding } from './content-coding';
import { encodeWhole } from './encoded-stream';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from './api-handler';

/** Whether a media range such as `*\/*`, `application/*` or `application/json` covers a media type. */
function covers(range: string, type: string): boolean {
  const [rangeType, rangeSub] = range.split('/');
  const [typeType, typeSub] = type.split('/');
  if (rangeSub === undefined || typeSub === undefined) return false;
  return (rangeType === '*' || rangeType === typeType) && (rangeSub === '*' || rangeSub === typeSub);
}

/**
 * Whether API Gateway turns a base64 body into bytes for this request: its first Accept media
 * type (parameters dropped) covered by one of the binary media types. No Accept header: no.
 */
export function gatewayDecodesBinary(
  event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>,
  binaryMediaTypes: readonly string[],
): boolean {
  const first = requestHeader(event, ACCEPT)?.split(',')[0]?.split(';')[0]?.trim().toLowerCase();
  if (!first) return false;
  return binaryMediaTypes.some((type) => covers(type.toLowerCase(), first));
}

/**
 * Whether API Gateway hands the function this request's body base64-encoded (isBase64Encoded): when
 * one of the API's binaryMediaTypes covers its Content-Type (parameters dropped); a request without
 * one is taken as `application/json`, API Gateway's default for a body.
 */
export function gatewayEncodesRequestBody(
  contentType: string | undefined,
  binaryMediaTypes: readonly string[],
): boolean {
  const type = (contentType?.split(';')[0]?.trim() || 'application/json').toLowerCase();
  return binaryMediaTypes.some((range) => covers(range.toLowerCase(), type));
}

/** The coding a buffered body of this request is sent in. */
export function bufferedCoding(event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>): ChosenCoding {
  if (!gatewayDecodesBinary(event, ENCODED_BODY_MEDIA_TYPES)) return 'identity';
  return chooseContentCoding(requestHeader(event, ACCEPT_ENCODING));
}

/**
 * The result's body, headers and base64 flag for `body`, compressed when the request allows it;
 * `headers` are the route's own, kept.
 */
export function encodedBody(
  event: Pick<ApiEvent, 'headers' | 'multiValueHeaders'>,
  body: string,
  headers: NonNullable<ApiResult['headers']>,
): Pick<ApiResult, 'headers' | 'body' | 'isBase64Encoded'> {
  const coding = bufferedCoding(event);
  const vary = { ...headers, [VARY]: BUFFERED_ENCODED_VARY };
  if (coding === 'identity') return { headers: vary, body };
  return {
    headers: { ...vary, [CONTENT_ENCODING]: coding },
    body: encodeWhole(body, coding).toString('base64'),
    isBase64Encoded: true,
  };
}

/**
 * A buffered route's handler whose successful bodies are sent in the coding the request accepts;
 * errors (small, and written by the middleware) stay uncompressed, as v1's do.
 */
export function withEncodedBody(
  handler: (event: ApiEvent, context: Context) => Promise<ApiResult>,
): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  return async (event, context) => {
    const result = await handler(event, context);
    if (result.statusCode !== 200 || result.isBase64Encoded) return result;
    return { ...result, ...encodedBody(event, result.body, result.headers ?? {}) };
  };
}
