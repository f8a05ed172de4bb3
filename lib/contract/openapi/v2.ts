// The v2 (beta) OpenAPI document: v2's routes under `/v2`, its Order with updatedAt, served at
// /v2/openapi.json and committed as openapi-v2.json.
import type { ErrorCode } from '../errors';
import { OPERATION_CONTRACTS } from '../operations';
import { V2_API_VERSION, V2_BASE_PATH, V2_ROUTES } from '../routes';
import { buildOpenApiDocument, type Edition } from './document';
import { errorsSection, gatewaySection, rateLimitsSection } from './description';
import { orderSchema, type JsonObject } from './schemas';

function syncedOrderSchema(): JsonObject {
  const v1 = orderSchema();
  return {
    ...v1,
    properties: {
      ...(v1.properties as JsonObject),
      updatedAt: {
        type: 'string',
        format: 'date-time',
        description:
          'When the order last changed (created, imported, cancelled, shipped), ISO 8601 in UTC with ' +
          'milliseconds. Absent only on an order written before v2 that the backfill has not reached.',
      },
    },
    example: { ...(v1.example as JsonObject), updatedAt: '2026-11-22T12:00:00.000Z' },
  };
}

function v2Description(codes: readonly ErrorCode[]): string {
  return [
    '**Beta** (`x-stability: beta`): may change without a new major version. Incremental sync of the ' +
      'store\'s orders: pages with an opaque cursor, a status filter, and "what changed since" (with a ' +
      'status, also the orders that left it). The sync is exact within stated timing bounds that AWS does ' +
      'not guarantee (see `GET /store/orders`). v1 (`/v1`) is unchanged beside it.',
    '## Authentication',
    'The same API keys as v1: `Authorization: Bearer <API key>`; a missing or invalid key is 401 `UNAUTHORIZED`.',
    rateLimitsSection(),
    errorsSection(codes),
    gatewaySection().replaceAll('`/v1`', `\`${V2_BASE_PATH}\``),
  ].join('\n\n');
}

export const V2_EDITION: Edition = {
  basePath: V2_BASE_PATH,
  version: V2_API_VERSION,
  description: v2Description,
  orderSchema: syncedOrderSchema,
  infoExtensions: { 'x-stability': 'beta' },
};

export function buildV2OpenApiDocument(): JsonObject {
  return buildOpenApiDocument(V2_ROUTES, OPERATION_CONTRACTS, V2_EDITION);
}
