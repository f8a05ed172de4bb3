// The success headers of a route whose body is compressed as the request's Accept-Encoding allows,
// for its OpenAPI document: v1's streamed listing and v2's buffered pages.
import type { JsonObject } from './openapi/schemas';
import { ACCEPT_ENCODING, CONTENT_CODINGS, CONTENT_ENCODING, VARY } from './headers';

/** `vary`: the request headers the body depends on, as the route sends them in `Vary`. */
export function encodedBodyHeaders(vary: string, varyDescription: string): JsonObject {
  return {
    [CONTENT_ENCODING]: {
      description: `The coding chosen from the request's \`${ACCEPT_ENCODING}\`; absent when the body is not compressed.`,
      required: false,
      schema: { type: 'string', enum: [...CONTENT_CODINGS] },
    },
    [VARY]: { description: varyDescription, required: true, schema: { type: 'string', const: vary } },
  };
}
