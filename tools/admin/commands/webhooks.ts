// `webhooks create|list|delete|rotate-secret`: an operator manages any key's webhook endpoints by the
// API's own rules (lib/): the body's checks, the URL and address rules, the cap, a secret shown once.
// `webhooks deliveries|test|replay`: what was delivered to one, a test event, and a replay of the
// orders changed since a watermark (docs/admin.md).
import { webhookEndpointView, WEBHOOK_EVENT_TYPES, type WebhookEndpointRecord } from '../../../lib/contract/webhooks';
import { parseEndpointRequest, type EndpointRequest } from '../../../lib/core/webhooks/endpoint-request';
import { generateEndpointId, isEndpointId } from '../../../lib/core/webhooks/endpoint-ids';
import { generateSigningSecret } from '../../../lib/core/webhooks/signature';
import { CodedError } from '../../../lib/contract/errors';
import { checkDestination } from '../../../lib/stores/webhook-destinations';
import { checkUrlForm, LOCAL_STACK_RULES } from '../../../lib/core/webhooks/url-rules';
import { defineCommand, type CommandContext } from '../command';
import { AdminFailure, UsageError } from '../../shared/errors';
import { columns } from '../../shared/output';
import { keyIdArgument } from './keys';
import { WEBHOOK_DELIVERY } from '../../../lib/contract/webhook-delivery';
import type { DeliveryQueue } from '../../../lib/stores/webhook-queue';
import { testDelivery } from '../../../lib/core/webhooks/test-event';
import { orderDelivery, type DeliveryMessage } from '../../../lib/core/webhooks/delivery-message';
import { replayEventType } from '../../../lib/core/webhooks/change-events';

type CreateArgs = EndpointRequest & { keyId: string; json: boolean };

function createArgs(values: { key?: string; url?: string; events?: string; json?: boolean }): CreateArgs {
  if (values.key === undefined) throw new UsageError('webhooks create needs --key (the key id that owns the endpoint)');
  if (values.url === undefined) throw new UsageError('webhooks create needs --url (an https URL)');
  const eventTypes = values.events?.split(',').map((type) => type.trim());
  try {
    // The API's own checks of the body, on what the command line gives.
    const request = parseEndpointRequest(JSON.stringify({ url: values.url, ...(eventTypes ? { eventTypes } : {}) }));
    // Its form, before anything is read: the target's own rules (and addresses) are checked when it runs.
    checkUrlForm(request.url, LOCAL_STACK_RULES);
    return { ...request, keyId: keyIdArgument(values.key), json: values.json ?? false };
  } catch (error) {
    throw error instanceof CodedError ? new UsageError(error.message.replace(/^eventTypes/, '--events')) : error;
  }
}

function endpointIdArgument(text: string): string {
  if (!isEndpointId(text))
    throw new UsageError('An endpoint id is whe_ followed by 24 hex digits, as `webhooks list` shows');
  return text;
}

/** The endpoint with this id, whatever key owns it (a Scan: the command is an operator's). */
async function endpointNamed(id: string, { target }: CommandContext): Promise<WebhookEndpointRecord> {
  const found = (await target.webhookEndpoints.listAll()).find((record) => record.id === id);
  if (!found) throw new AdminFailure(`No webhook endpoint ${id} in ${target.label}`);
  return found;
}

/** The secret, printed once with what it is for; or one JSON object with it. */
function showSecret(
  context: CommandContext,
  record: WebhookEndpointRecord,
  secret: string,
  json: boolean,
  now: Date,
): void {
  const view = { ...webhookEndpointView(record, now.getTime()), ownerKeyId: record.ownerKeyId };
  if (json) return context.out.out(JSON.stringify({ ...view, secret }));
  context.out.out(`  url:    ${record.url}`);
  context.out.out(`  events: ${record.eventTypes.join(', ')}`);
  if (view.previousSecretExpiresAt)
    context.out.out(`  the previous secret signs too until ${view.previousSecretExpiresAt}`);
  context.out.out('');
  context.out.out('The signing secret, shown this once (give it to the receiver; verify with standardwebhooks):');
  context.out.out(`  ${secret}`);
}

/** The endpoint with this id, whatever key owns it, and where its item is (a delivery names it so). */
async function endpointFound(id: string, { target }: CommandContext) {
  const found = await target.webhookEndpoints.findAnywhere(id);
  if (!found) throw new AdminFailure(`No webhook endpoint ${id} in ${target.label}`);
  return found;
}

/** The target's delivery queue; a target without one (no stack to name it) is the operator's to fix. */
function queueOf({ target }: CommandContext): DeliveryQueue {
  if (!target.webhookQueue)
    throw new AdminFailure(
      `${target.label} names no webhook delivery queue: start the local stack with npm start, or deploy the current stack`,
    );
  return target.webhookQueue;
}

async function listDeliveries(args: { id: string; limit: number; json: boolean }, context: CommandContext) {
  const { record } = await endpointFound(args.id, context);
  const now = await context.clock.checkedNow();
  const attempts = await context.target.webhookDeliveries.recentAttempts(record.id, now, args.limit);
  if (args.json) return context.out.out(JSON.stringify(attempts));
  if (attempts.length === 0) return context.out.out(`No delivery attempts of ${args.id} kept.`);
  const rows = attempts.map((a) => [
    a.attemptedAt,
    a.eventId,
    a.type,
    a.orderId ?? '',
    String(a.attempt),
    a.outcome,
    a.responseStatus === undefined ? '' : String(a.responseStatus),
    a.latencyMs === undefined ? '' : `${a.latencyMs} ms`,
    a.nextAttemptAt ?? '',
    a.detail ?? '',
  ]);
  const header = ['ATTEMPTED', 'EVENT', 'TYPE', 'ORDER', 'ATTEMPT', 'OUTCOME', 'STATUS', 'LATENCY', 'NEXT', 'DETAIL'];
  for (const line of columns(header, rows)) context.out.out(line);
}

async function sendTest(id: string, context: CommandContext): Promise<void> {
  const { ref } = await endpointFound(id, context);
  const delivery = testDelivery(ref, new Date(await context.clock.checkedNow()));
  await queueOf(context).send([{ message: delivery }]);
  context.out.out(`Queued test event ${delivery.eventId} for ${id}: its webhook-id when it arrives.`);
}

/** Orders read a page at a time while replaying, and deliveries queued a batch at a time. */
const REPLAY_PAGE = 500;

async function replay(args: { id: string; since: string }, context: CommandContext): Promise<void> {
  const { record, ref } = await endpointFound(args.id, context);
  if (record.state.status !== 'enabled')
    throw new AdminFailure(
      `Webhook endpoint ${args.id} is disabled (${record.state.reason}): nothing would be delivered`,
    );
  const now = await context.clock.checkedNow();
  if (Date.parse(args.since) > now)
    throw new UsageError(`--since ${args.since} is in the future (AWS's time is ${new Date(now).toISOString()})`);
  const queue = queueOf(context);
  let [read, queued] = [0, 0];
  let position: Parameters<typeof context.target.pages.page>[1];
  do {
    const page = await context.target.pages.page({ updatedSince: args.since }, position, REPLAY_PAGE);
    read += page.orders.length;
    const deliveries = page.orders.flatMap((order): { message: DeliveryMessage }[] => {
      const type = replayEventType(order);
      if (order.updatedAt === undefined || !record.eventTypes.includes(type)) return [];
      return [
        {
          message: {
            ...orderDelivery(ref, type, { ...order, updatedAt: order.updatedAt }),
            resend: true,
          },
        },
      ];
    });
    if (deliveries.length > 0) await queue.send(deliveries);
    queued += deliveries.length;
    context.out.progress?.(`replaying: ${read} orders read, ${queued} events queued`);
    position = page.next;
  } while (position !== undefined && !context.signal?.aborted);
  context.out.progressDone?.();
  const stopped = position !== undefined ? ' (stopped: run it again with the same --since to finish)' : '';
  context.out.out(
    `Queued ${queued} events for ${args.id}: every order changed since ${args.since} as it is now, of the types it names (${read} orders read)${stopped}.`,
  );
}

async function createEndpoint(args: CreateArgs, context: CommandContext): Promise<void> {
  const { target, clock } = context;
  const key = await target.keys.get(args.keyId);
  if (!key || key.revokedAt !== undefined)
    throw new AdminFailure(`No live API key with id ${args.keyId} in ${target.label}`);
  const destination = await checkDestination(args.url, target.webhookDestinations).catch((error: unknown) => {
    throw error instanceof CodedError && error.code !== 'SERVICE_UNAVAILABLE' ? new UsageError(error.message) : error;
  });
  const secret = generateSigningSecret();
  const endpoint = { id: generateEndpointId(), url: destination.url, eventTypes: args.eventTypes, secret };
  const now = new Date(await clock.checkedNow());
  const record = await target.webhookEndpoints.create(args.keyId, endpoint, now).catch((error: unknown) => {
    throw error instanceof CodedError ? new AdminFailure(error.message) : error;
  });
  if (!args.json) context.out.out(`Created webhook endpoint ${record.id} of ${args.keyId} in ${target.label}`);
  showSecret(context, record, secret, args.json, now);
}

async function listEndpoints(
  args: { keyId?: string; json: boolean },
  { target, out, clock }: CommandContext,
): Promise<void> {
  const now = await clock.checkedNow();
  const records =
    args.keyId === undefined
      ? await target.webhookEndpoints.listAll()
      : await target.webhookEndpoints.listOwned(args.keyId);
  const views = records.map((record) => ({ ...webhookEndpointView(record, now), ownerKeyId: record.ownerKeyId }));
  if (args.json) return out.out(JSON.stringify(views));
  if (views.length === 0)
    return out.out(`No webhook endpoints${args.keyId ? ` of ${args.keyId}` : ''} in ${target.label}.`);
  const rows = views.map((v) => [
    v.id,
    v.ownerKeyId,
    v.status === 'enabled' ? 'enabled' : `disabled (${v.disabledReason}) since ${v.statusSince}`,
    v.eventTypes.join(','),
    v.createdAt,
    v.url,
  ]);
  for (const line of columns(['ID', 'KEY', 'STATUS', 'EVENTS', 'CREATED', 'URL'], rows)) out.out(line);
}

async function deleteEndpoint(id: string, context: CommandContext): Promise<void> {
  const record = await endpointNamed(id, context);
  await context.target.webhookEndpoints.delete(record.ownerKeyId, id, new Date(await context.clock.checkedNow()));
  context.out.out(
    `Deleted webhook endpoint ${id} of ${record.ownerKeyId} (${record.url}): no event goes to it any more.`,
  );
}

async function rotateSecret(args: { id: string; json: boolean }, context: CommandContext): Promise<void> {
  const record = await endpointNamed(args.id, context);
  const secret = generateSigningSecret();
  const now = new Date(await context.clock.checkedNow());
  const rotated = await context.target.webhookEndpoints.rotateSecret(record.ownerKeyId, args.id, secret, now);
  if (!rotated) throw new AdminFailure(`Webhook endpoint ${args.id} was deleted meanwhile`);
  if (!args.json) context.out.out(`Rotated the signing secret of ${args.id} (${record.ownerKeyId})`);
  showSecret(context, rotated, secret, args.json, now);
}

export const webhooksCreate = defineCommand({
  name: 'webhooks create',
  options: {
    key: { type: 'string', value: 'KEY-ID', required: true },
    url: { type: 'string', value: 'URL', required: true },
    events: { type: 'string', value: 'TYPE,...' },
    json: { type: 'boolean' },
  },
  arguments: [],
  help: [
    "Registers a webhook endpoint for a key, as the key's own POST /v2/webhook-endpoints would: an https",
    'URL whose host resolves to public addresses only (http to loopback on the local stack), within the',
    `key's cap. --events: some of ${WEBHOOK_EVENT_TYPES.join(', ')} (default: all). Prints the signing`,
    'secret once. --json prints one object: the endpoint, ownerKeyId and secret.',
  ],
  parse: ({ values }) => createArgs(values),
  run: createEndpoint,
});

export const webhooksList = defineCommand({
  name: 'webhooks list',
  options: { key: { type: 'string', value: 'KEY-ID' }, json: { type: 'boolean' } },
  arguments: [],
  help: ["Every webhook endpoint (or one key's): id, key, status (and why disabled), events, URL. No secret."],
  parse: ({ values }) => ({
    ...(values.key !== undefined ? { keyId: keyIdArgument(values.key) } : {}),
    json: values.json ?? false,
  }),
  run: listEndpoints,
});

export const webhooksDelete = defineCommand({
  name: 'webhooks delete',
  options: {},
  arguments: ['<endpoint-id>'],
  help: ['Deletes a webhook endpoint, whatever key owns it: no event goes to it any more.'],
  parse: ({ args: [id = ''] }) => endpointIdArgument(id),
  run: deleteEndpoint,
});

export const webhooksRotateSecret = defineCommand({
  name: 'webhooks rotate-secret',
  options: { json: { type: 'boolean' } },
  arguments: ['<endpoint-id>'],
  help: [
    'Gives an endpoint a new signing secret, printed once; the previous one signs beside it for the',
    'overlap the API declares, so the receiver can switch.',
  ],
  parse: ({ values, args: [id = ''] }) => ({ id: endpointIdArgument(id), json: values.json ?? false }),
  run: rotateSecret,
});

export const webhooksDeliveries = defineCommand({
  name: 'webhooks deliveries',
  options: { limit: { type: 'string', value: 'N' }, json: { type: 'boolean' } },
  arguments: ['<endpoint-id>'],
  help: [
    "An endpoint's latest delivery attempts, newest first: when, the event, its type and order, the",
    `attempt, its outcome, the receiver's status and latency, the next retry. --limit N (default ${WEBHOOK_DELIVERY.logShown});`,
    `attempts are kept ${WEBHOOK_DELIVERY.logRetentionMs / 86_400_000} days. --json prints them as one array.`,
  ],
  parse: ({ values, args: [id = ''] }) => {
    const text = values.limit;
    const limit = text === undefined ? WEBHOOK_DELIVERY.logShown : /^[1-9][0-9]{0,4}$/.test(text) ? Number(text) : NaN;
    if (Number.isNaN(limit)) throw new UsageError('--limit must be a whole number from 1 to 99999');
    return { id: endpointIdArgument(id), limit, json: values.json ?? false };
  },
  run: listDeliveries,
});

export const webhooksTest = defineCommand({
  name: 'webhooks test',
  options: {},
  arguments: ['<endpoint-id>'],
  help: [
    'Queues a webhook.test event for the endpoint, delivered, signed and retried as order events are;',
    'prints its id. Its attempts show in `webhooks deliveries`.',
  ],
  parse: ({ args: [id = ''] }) => endpointIdArgument(id),
  run: sendTest,
});

/** An instant as the v2 sync gives watermarks (ISO 8601 in UTC), normalised; anything else is a usage mistake. */
function watermarkArgument(text: string | undefined): string {
  if (text === undefined)
    throw new UsageError('webhooks replay needs --since (a watermark, e.g. 2026-12-01T09:00:00.000Z)');
  const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms))
    throw new UsageError(`--since must be an instant in UTC such as 2026-12-01T09:00:00.000Z, got "${text}"`);
  return new Date(ms).toISOString();
}

export const webhooksReplay = defineCommand({
  name: 'webhooks replay',
  options: { since: { type: 'string', value: 'WATERMARK', required: true } },
  arguments: ['<endpoint-id>'],
  help: [
    'Resends what a receiver lost: every order changed since WATERMARK (a v2 sync watermark, or any',
    'instant), as it is now, as an event of its status (order.created for a pending one), to the',
    'endpoint, if it names that type. Sent even when the receiver acknowledged that change before;',
    'never after a later change of the order. Safe to repeat.',
  ],
  parse: ({ values, args: [id = ''] }) => ({ id: endpointIdArgument(id), since: watermarkArgument(values.since) }),
  run: replay,
});
