// A test event on demand (`POST /v2/webhook-endpoints/{endpointId}/test`, admin `webhooks test`): a
// delivery to one endpoint of a `webhook.test` event whose id is new (16 random bytes), so each test
// is an event of its own; delivered, signed and retried as an order event is.
import { randomBytes } from 'node:crypto';
import { WEBHOOK_TEST_EVENT_TYPE, webhookTestEventJson } from '../../contract/webhook-delivery';
import type { DeliveryEndpoint, DeliveryMessage } from './delivery-message';

export function testDelivery(
  endpoint: DeliveryEndpoint,
  at: Date,
  random: (size: number) => Buffer = randomBytes,
): DeliveryMessage {
  const { ownerKeyId, entry, id } = endpoint;
  return {
    eventId: `evt_${random(16).toString('hex')}`,
    type: WEBHOOK_TEST_EVENT_TYPE,
    body: webhookTestEventJson(id, at),
    endpoint: { ownerKeyId, entry, id },
    attempts: 0,
  };
}
