import type { ErrorCode } from './errors';
import type { JsonObject } from './openapi/schemas';

/**
 * What a route answers beyond what every route answers (401, 429, 500, 503): its success and the
 * errors of its own handler. The route table says how a route is reached; this says what comes
 * back, and the OpenAPI builder refuses a route that has none.
 */
export interface OperationContract {
  description?: string;
  /** OpenAPI Parameter objects of the query string (`in: query`). */
  queryParameters?: readonly JsonObject[];
  /** The JSON body the operation takes, when it takes one. */
  requestBody?: { description: string; schema: JsonObject; example: JsonObject };
  success?: {
    status: number;
    description: string;
    schema?: JsonObject;
    example?: JsonObject | JsonObject[];
    /** Headers of the success beyond those every answer of the route carries. */
    headers?: JsonObject;
  };
  errors: readonly ErrorCode[];
}
