// What GET /v2/store/orders answers and takes, for the v2 OpenAPI document (lib/contract/openapi/v2.ts).
import type { OperationContract } from './operation-contract';
import { ORDER_SCHEMA_REF } from './openapi/schemas';
import { CURSOR_LIFETIME_MS, SYNC_FILTERS, SYNC_PAGE, SYNC_PARAMETERS, SYNC_TEXT_LIMITS, SYNC_TIMING } from './sync';
import { SYNC_FILTER_DECLARATIONS } from './sync-filters';
import { ACCEPT, ACCEPT_ENCODING, BUFFERED_ENCODED_VARY } from './headers';
import { encodedBodyHeaders } from './coding-headers';
import { indexLagRepairMs, syncRepairMs } from './deployment';

const { defaultLimit, minLimit, maxLimit } = SYNC_PAGE;

export const LIST_ORDERS_V2: OperationContract = {
  description:
    'Returns one page of orders. Follow `nextCursor` (or the `Link` header with `rel="next"`) to the ' +
    'next page; it is absent on the last page, which carries `watermark` instead. Every page is one ' +
    `request for the rate limits. Without filters the order of the items is not specified. With \`${SYNC_PARAMETERS.status}\` or ` +
    `\`${SYNC_PARAMETERS.updatedSince}\`, orders come in ascending \`updatedAt\` (ties by id). With both, every page also ` +
    `lists \`departed\`: the orders changed at or after \`${SYNC_PARAMETERS.updatedSince}\` that are now outside ` +
    `\`${SYNC_PARAMETERS.status}\`, so that a replica of that status drops the copies it holds of them. ` +
    "Incremental sync: a client that gives the last walk's `watermark` as `updatedSince` next time misses no " +
    `change while three timing bounds hold: every index read shows a write within ${SYNC_TIMING.indexLagMs / 1000} s, ` +
    `the clocks that stamp changes and start walks are within ${SYNC_TIMING.clockErrorMs / 1000} s of AWS's, and a ` +
    `write its writer gave up on reaches the table within ${SYNC_TIMING.unansweredLandingMs / 1000} s. AWS guarantees ` +
    "none of them, so the service watches the table's changes: one that reached the table later than its stamp " +
    "allows (however late, a slow writer's clock included) is given a new `updatedAt`, and any walk that starts " +
    `${syncRepairMs() / 1000} s after it landed delivers it; and it measures the indexes' lag every minute: while ` +
    'it exceeds its bound the watermark stands back further, and any walk that starts ' +
    `${indexLagRepairMs() / 1000} s after the lag is back delivers every change made meanwhile. Each change makes an ` +
    "order's `updatedAt` strictly later, so (`id`, `updatedAt`) names a change; a change may come more than once " +
    '(changes newer than the watermark are served too and come again), so apply an order only when its ' +
    "`updatedAt` is later than the copy held, and drop a departed order's copy only when the copy is older. A " +
    `change acknowledged to its writer is delivered by any walk that starts ${SYNC_TIMING.freshnessMs / 1000} s later ` +
    'or more, within the same bounds. ' +
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
      description:
        `Orders per page, ${minLimit} to ${maxLimit}; \`departed\` orders count towards it. Plain decimal digits ` +
        'without sign or leading zeros, as ids are written: `05` is 400 `INVALID_QUERY`.',
      schema: { type: 'integer', format: 'int32', minimum: minLimit, maximum: maxLimit, default: defaultLimit },
    },
    {
      name: SYNC_PARAMETERS.cursor,
      in: 'query',
      required: false,
      description:
        'Opaque: the `nextCursor` of the previous page. A cursor this API did not issue, an altered one, ' +
        `one longer than ${SYNC_TEXT_LIMITS.cursor} characters (no cursor it issues is), one given with other filters ` +
        `than its own, or one whose walk started more than ${CURSOR_LIFETIME_MS / 86_400_000} days ago is 400 ` +
        '`INVALID_CURSOR`: start the walk again from your last watermark.',
      schema: { type: 'string', maxLength: SYNC_TEXT_LIMITS.cursor },
    },
    // The filters' own, as each is declared (lib/contract/sync-filters.ts).
    ...SYNC_FILTERS.map((name) => ({
      name,
      in: 'query',
      required: false,
      ...SYNC_FILTER_DECLARATIONS[name].parameter,
    })),
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
        orders: { type: 'array', maxItems: maxLimit, items: { $ref: ORDER_SCHEMA_REF } },
        departed: {
          type: 'array',
          maxItems: maxLimit,
          items: { $ref: ORDER_SCHEMA_REF },
          description:
            `On every page of a walk with both \`${SYNC_PARAMETERS.status}\` and \`${SYNC_PARAMETERS.updatedSince}\` ` +
            'only (absent otherwise): the orders changed at or after `updatedSince` that are now outside `status`, ' +
            'as they are now, in ascending `updatedAt`. A replica of that status drops its copy of one when the ' +
            "copy's `updatedAt` is earlier; apply a walk's `orders` first, then its `departed`.",
        },
        nextCursor: {
          type: 'string',
          description: 'Give it as `cursor` for the next page; absent on the last page.',
        },
        watermark: {
          type: 'string',
          format: 'date-time',
          description:
            'On the last page only: every change up to this instant is settled and has been delivered by ' +
            "this walk, within the timing bounds above. Give it as `updatedSince` next time. It is the walk's " +
            'start less a settling time that covers those bounds, never later, even when that is earlier than ' +
            "the walk's `updatedSince` (the next walk then delivers some changes again); further back while the " +
            'indexes lag beyond their bound; and while the service cannot measure their lag, at the last instant ' +
            "it could vouch for, or at the walk's `updatedSince` if that is later (the walk vouches for nothing new).",
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
