import type { ErrorCode } from './errors';
import { ORDER_SCHEMA_REF, PET_SCHEMA_REF, type JsonObject } from './openapi/schemas';
import { ACCEPT_ENCODING } from './headers';
import { encodedBodyHeaders } from './coding-headers';
import { LIST_ORDERS_V2 } from './sync-operation';
import { ENDPOINT_ID_PARAMETER, WEBHOOK_DELIVERY_OPERATIONS, WEBHOOK_OPERATIONS } from './webhook-operations';
import type { OperationContract } from './operation-contract';
import { isOperationId, type OperationId } from './routes';

/** What each declared operation answers: a route declared without one does not compile. */
export const OPERATION_CONTRACTS: Record<OperationId, OperationContract> = {
  listOrders: {
    description:
      'Returns every order in the store, cancelled ones included, as one JSON array. There is no ' +
      'filtering and no pagination (planned for v2), and the order of the items is not specified. ' +
      'The array is streamed as the table is read. Send `Accept-Encoding: gzip` (or `br`) to receive ' +
      'it compressed, several times smaller; without the header it comes uncompressed, unless the ' +
      'store is too large for an uncompressed response (406 `LISTING_TOO_LARGE_UNCOMPRESSED`, answered ' +
      'before any order is read). A key may have only a few listings in progress at once, by plan ' +
      '(429 `TOO_MANY_LISTINGS`). A failure ' +
      'after the first byte cuts the connection, so the (decompressed) body is then invalid JSON, ' +
      'never a shorter array.',
    success: {
      status: 200,
      description: 'Every order.',
      headers: encodedBodyHeaders(ACCEPT_ENCODING, `The body depends on the request's \`${ACCEPT_ENCODING}\`.`),
      schema: { type: 'array', items: { $ref: ORDER_SCHEMA_REF } },
      example: [
        { id: 1, petId: 11, quantity: 2, shipDate: '2026-11-20T10:00:00.000Z', complete: false, status: 'pending' },
        { id: 2, complete: true, status: 'shipped' },
      ],
    },
    errors: ['LISTING_TOO_LARGE_UNCOMPRESSED', 'TOO_MANY_LISTINGS'],
  },
  cancelOrder: {
    description:
      'Cancels a `pending` order: it becomes `cancelled`. Cancelling an order that is already ' +
      '`cancelled` answers 204 again, so a retried cancel is safe. A `shipped` order cannot be ' +
      'cancelled (409) and is left unchanged. The check and the change are one atomic operation.',
    success: { status: 204, description: 'The order is cancelled (or already was). No body.' },
    errors: ['INVALID_ORDER_ID', 'ORDER_NOT_FOUND', 'ORDER_ALREADY_SHIPPED'],
  },
  getPetById: {
    description:
      "Returns one pet of the store's pets, as the public Petstore's `Pet`. Kept for clients of the " +
      'Petstore interface; it answers until its sunset date, then it is removed.',
    success: {
      status: 200,
      description: 'The pet.',
      schema: { $ref: PET_SCHEMA_REF },
      example: {
        id: 101,
        category: { id: 1, name: 'Dogs' },
        name: 'Rex',
        photoUrls: ['https://example.com/pets/101.jpg'],
        tags: [{ id: 1, name: 'friendly' }],
        status: 'available',
      },
    },
    errors: ['INVALID_PET_ID', 'PET_NOT_FOUND'],
  },
  listOrdersV2: LIST_ORDERS_V2,
  ...WEBHOOK_OPERATIONS,
  ...WEBHOOK_DELIVERY_OPERATIONS,
};

/** Path parameters by name; a name used in a route but not declared here is refused. */
export const PATH_PARAMETERS: Record<string, JsonObject> = {
  orderId: {
    description:
      'The order to cancel: a decimal integer in the int64 range, written without sign (other than ' +
      '`-`), leading zeros, fraction or exponent, e.g. `9223372036854775807`. Anything else is 400 ' +
      '`INVALID_ORDER_ID`.\n\n' +
      '**Generated clients:** ids above 2^53 (9007199254740992) do not fit a JavaScript number. ' +
      'A client generated from this document as is (openapi-typescript, for example) types `orderId` ' +
      'as `number`, and `9007199254740993` then becomes `9007199254740992`: another order. Generate ' +
      'int64 as `string` (openapi-typescript: a `transform` mapping `format: int64` to `string`) ' +
      "and pass the id's digits as a string.",
    schema: { type: 'integer', format: 'int64' },
    // Contract testers (Dredd) build the request path from it: the demo data's first pending order.
    example: 1,
  },
  petId: {
    description:
      'The pet to return: a decimal integer in the int64 range, written as for `orderId`. Anything ' +
      'else is 400 `INVALID_PET_ID`. Ids above 2^53 need the same care as order ids.',
    schema: { type: 'integer', format: 'int64' },
    // The demo data's pet of the first demo order.
    example: 101,
  },
  endpointId: ENDPOINT_ID_PARAMETER,
};

/** The limiter's refusals, answered on every route. */
export const RATE_LIMIT_CODES = [
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'KEY_TEMPORARILY_BANNED',
] as const satisfies readonly ErrorCode[];
export type RateLimitCode = (typeof RATE_LIMIT_CODES)[number];

/** Answered on every route: by the authorizer, the limiter, or a failure. */
export const COMMON_ERROR_CODES: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  ...RATE_LIMIT_CODES,
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
];

/**
 * Every code a route's function can answer: the common ones and its operation's own. The error
 * mapping answers nothing else, so the document cannot promise less than a route does.
 */
export function routeErrorCodes(operationId: string): ReadonlySet<ErrorCode> {
  // A route no table declares (a test's fixture) answers the common codes only.
  const own = isOperationId(operationId) ? OPERATION_CONTRACTS[operationId].errors : [];
  return new Set([...COMMON_ERROR_CODES, ...own]);
}

/**
 * Answered by the gateway itself, before any operation is chosen: API Gateway's answers, and the
 * web ACL's in front of it (ADDRESS_RATE_LIMITED, lib/contract/address-limit.ts).
 */
export const GATEWAY_ERROR_CODES: readonly ErrorCode[] = [
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'BAD_REQUEST',
  'ADDRESS_RATE_LIMITED',
];

/**
 * Of the gateway's own answers, those that can come to a request for any operation (a request it
 * cannot pass on, or one from an address over its limit): documented under every operation too,
 * since generators and tools ignore `x-gateway-responses`. They come before the authorizer and the
 * limiter: no rate-limit headers.
 */
export const GATEWAY_ANY_REQUEST_CODES: readonly ErrorCode[] = ['BAD_REQUEST', 'ADDRESS_RATE_LIMITED'];
