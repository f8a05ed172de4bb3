import { ERROR_CODES, errorBody, type ErrorCode } from '../errors';
import { ORDER_STATUSES, QUANTITY_MAX, type Order } from '../order';
import { PET_STATUSES, type Pet, type PetLabel } from '../pet';

/** A JSON value, so the document is plain data that serialises the same way every time. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export const ORDER_SCHEMA_REF = '#/components/schemas/Order';
export const ERROR_SCHEMA_REF = '#/components/schemas/Error';
export const PET_SCHEMA_REF = '#/components/schemas/Pet';

const int64 = (description: string): JsonObject => ({ type: 'integer', format: 'int64', description });

/**
 * The Order record. The specification marks no field required; `status` is the one this service
 * adds and always writes, so it is the one required field. A field an order does not have is left
 * out, never sent as null, so no field is nullable.
 */
export function orderSchema(): JsonObject {
  return {
    type: 'object',
    description:
      'An order. Fields an order does not have are left out (never `null`). `status` is always present. ' +
      '`id` and `petId` are int64 and are written as exact JSON integers: parse them without going through ' +
      'a double (for example as BigInt or a decimal string), because values above 2^53 lose digits in a JS number.',
    additionalProperties: false,
    required: ['status'] satisfies (keyof Order)[],
    // Exactly the fields of the Order type: a field added to one and not the other fails to compile.
    properties: {
      id: int64('Unique order identifier.'),
      petId: int64('Identifier of the animal in the order.'),
      quantity: {
        type: 'integer',
        format: 'int32',
        minimum: 0,
        maximum: QUANTITY_MAX,
        description: 'Number of units ordered.',
      },
      shipDate: { type: 'string', format: 'date-time', description: 'Expected or actual ship date, ISO 8601 in UTC.' },
      complete: { type: 'boolean', description: 'Whether the order has been fulfilled.' },
      status: {
        type: 'string',
        enum: [...ORDER_STATUSES],
        description: 'Only a `pending` order can be cancelled; cancelling makes it `cancelled`.',
      },
    } satisfies Record<keyof Order, JsonObject>,
    example: {
      id: 10,
      petId: 11,
      quantity: 2,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: false,
      status: 'pending',
    },
  };
}

/** A category or a tag of a pet: the Petstore's `Category` and `Tag` have the same fields. */
function petLabelSchema(what: string): JsonObject {
  return {
    type: 'object',
    additionalProperties: false,
    properties: {
      id: int64(`Identifier of the ${what}.`),
      name: { type: 'string', description: `Name of the ${what}.` },
    } satisfies Record<keyof PetLabel, JsonObject>,
  };
}

/** The public Petstore's Pet: `name` and `photoUrls` required, ids int64 written as exact integers. */
export function petSchema(): JsonObject {
  return {
    type: 'object',
    description:
      'A pet, as the public Petstore describes it. Fields a pet does not have are left out (never `null`). ' +
      '`id` and the ids of `category` and `tags` are int64, written as exact JSON integers.',
    additionalProperties: false,
    required: ['id', 'name', 'photoUrls'] satisfies (keyof Pet)[],
    properties: {
      id: int64('Unique pet identifier.'),
      category: petLabelSchema('category'),
      name: { type: 'string', description: 'Name of the pet.' },
      photoUrls: { type: 'array', items: { type: 'string' }, description: 'Photos of the pet.' },
      tags: { type: 'array', items: petLabelSchema('tag'), description: 'Tags of the pet.' },
      status: { type: 'string', enum: [...PET_STATUSES], description: 'Pet status in the store.' },
    } satisfies Record<keyof Pet, JsonObject>,
  };
}

/** The Error record; its code is one of `codes`, those the document's answers can carry. */
export function errorSchema(codes: readonly ErrorCode[] = ERROR_CODES): JsonObject {
  return {
    type: 'object',
    description: 'The body of every error response, whoever answers it (the service or the gateway).',
    additionalProperties: false,
    required: ['code', 'message', 'status'],
    properties: {
      code: { type: 'string', enum: [...codes], description: 'Machine-readable error code.' },
      message: { type: 'string', description: 'Human-readable description.' },
      status: { type: 'integer', format: 'int32', description: 'The HTTP status code of the response.' },
    },
  };
}

/** The Error record narrowed to the codes one response can carry. */
export function errorResponseSchema(codes: readonly ErrorCode[], status: number): JsonObject {
  return {
    allOf: [{ $ref: ERROR_SCHEMA_REF }, { properties: { code: { enum: [...codes] }, status: { const: status } } }],
  };
}

export function errorExamples(codes: readonly ErrorCode[]): JsonObject {
  return Object.fromEntries(codes.map((code) => [code, { value: { ...errorBody(code) } }]));
}
