// A request's body as the function gets it: API Gateway passes it base64-encoded (isBase64Encoded)
// when the API's binaryMediaTypes cover its Content-Type (the v2 API's `*/*` covers every one:
// lib/contract/routes.ts), as it is otherwise. The local gateway passes it the same way.
import type { ApiEvent } from './api-handler';

/** The body's bytes, or undefined when the request has none. */
export function requestBodyBytes(event: Pick<ApiEvent, 'body' | 'isBase64Encoded'>): Buffer | undefined {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
}

/** The bytes as UTF-8 text, or undefined when they are not UTF-8. */
export function utf8Text(bytes: Buffer): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
