// What GET /v2/store/orders answers and takes, for the v2 OpenAPI document (lib/contract/openapi/v2.ts).
import type { OperationContract } from './operation-contract';
import { ORDER_SCHEMA_REF } from './openapi/schemas';
import { CURSOR_LIFETIME_MS, SYNC_PAGE, SYNC_PARAMETERS, SYNC_STATUSES, SYNC_TIMING } from './sync';
import { ACCEPT, ACCEPT_ENCODING, BUFFERED_ENCODED_VARY } from './headers';
import { encodedBodyHeaders } from './coding-headers';

const { defaultLimit, minLimit, maxLimit } = SYNC_PAGE;

export const LIST_ORDERS_V2: OperationContract = {
  description:
    'Returns one page of orders. Follow `nextCursor` (or the `Link` header with `rel="next"`) to the ' +
    'next page; it is absent on the last page, which carries `watermark` instead. Every page is one ' +
    `request for the rate limits. Without filters the order of the items is not specified. With \`${SYNC_PARAMETERS.status}\` or ` +
    `\`${SYNC_PARAMETERS.updatedSince}\`, orders come in ascending \`updatedAt\` (ties by id). Incremental sync is ` +
    "exact: a client that gives the last walk's `watermark` as `updatedSince` next time misses no change, " +
    "whatever the writers' timing, the index's lag or a clock's skew. Each change makes an order's " +
    '`updatedAt` strictly later, so (`id`, `updatedAt`) names a change; a change may come more than once ' +
    '(changes newer than the watermark are served too and come again), so apply an order only when its ' +
    '`updatedAt` is later than the copy held. A change acknowledged to its writer is delivered by any walk ' +
    `that starts ${SYNC_TIMING.freshnessMs / 1000} s later or more. ` +
    'A page reads items in proportion to its size, never to the store. A cursor carries its filters and the ' +
    "walk's start: give it with the same filters or none. Orders written before v2 carry no `updatedAt`, and only " +
    'unfiltered pages return them until an operator has run `orders backfill-updated-at`. Send ' +
    `\`${ACCEPT_ENCODING}: gzip\` (or \`br\`) with an \`${ACCEPT}\` header to receive a page compressed, about ` +
    `five times smaller; without \`${ACCEPT}\` a page comes uncompressed (API Gateway passes a compressed ` +
    'body to clients as bytes only for a request that names the media types it accepts).',
  queryParameters: [
    {
      name: SYNC_PARAMETERS.limit,
      in: 'query',
      required: false,
      description: `Orders per page, ${minLimit} to ${maxLimit}.`,
      schema: { type: 'integer', minimum: minLimit, maximum: maxLimit, default: defaultLimit },
    },
    {
      name: SYNC_PARAMETERS.cursor,
      in: 'query',
      required: false,
      description:
        'Opaque: the `nextCursor` of the previous page. A cursor this API did not issue, an altered one, ' +
        `one given with other filters than its own, or one whose walk started more than ${CURSOR_LIFETIME_MS / 86_400_000} days ago ` +
        'is 400 `INVALID_CURSOR`: start the walk again from your last watermark.',
      schema: { type: 'string' },
    },
    {
      name: SYNC_PARAMETERS.status,
      in: 'query',
      required: false,
      description: 'Only orders with this status.',
      schema: { type: 'string', enum: [...SYNC_STATUSES] },
    },
    {
      name: SYNC_PARAMETERS.updatedSince,
      in: 'query',
      required: false,
      description:
        'Only orders whose `updatedAt` is at or after this instant (RFC 3339 date-time, any offset), ' +
        'in ascending `updatedAt`.',
      schema: { type: 'string', format: 'date-time' },
    },
  ],
  success: {
    status: 200,
    description: 'One page of orders.',
    headers: {
      Link: {
        description:
          'RFC 8288: `<?cursor=…&limit=…>; rel="next"`, a reference relative to the request URL; present ' +
          'exactly when `nextCursor` is.',
        required: false,
        schema: { type: 'string' },
      },
      ...encodedBodyHeaders(
        BUFFERED_ENCODED_VARY,
        `The body depends on the request's \`${ACCEPT_ENCODING}\` (its coding) and \`${ACCEPT}\` (whether it is compressed).`,
      ),
    },
    schema: {
      type: 'object',
      additionalProperties: false,
      required: ['orders'],
      properties: {
        orders: { type: 'array', items: { $ref: ORDER_SCHEMA_REF } },
        nextCursor: {
          type: 'string',
          description: 'Give it as `cursor` for the next page; absent on the last page.',
        },
        watermark: {
          type: 'string',
          format: 'date-time',
          description:
            'On the last page only: every change up to this instant is settled and has been delivered by ' +
            "this walk. Give it as `updatedSince` next time. Never earlier than the walk's `updatedSince`.",
        },
      },
    },
    example: {
      orders: [{ id: 2, complete: true, status: 'shipped', updatedAt: '2026-11-22T12:00:00.000Z' }],
      nextCursor: 'eyJ2IjoxfQ.c2lnbmF0dXJl',
    },
  },
  errors: ['INVALID_QUERY', 'INVALID_CURSOR'],
};
