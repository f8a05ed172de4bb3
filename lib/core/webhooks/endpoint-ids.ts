// An endpoint's id: `whe_` and 24 lowercase hex digits of the OS CSPRNG. It names the endpoint in
// its owner's paths; another key's id is simply not found (lib/stores/webhook-endpoints.ts reads
// only the caller's own endpoints).
import { randomBytes } from 'node:crypto';
import { WEBHOOK_ENDPOINT_ID_PATTERN, WEBHOOK_ENDPOINT_ID_PREFIX } from '../../contract/webhooks';

export function generateEndpointId(random: (size: number) => Buffer = randomBytes): string {
  return `${WEBHOOK_ENDPOINT_ID_PREFIX}${random(12).toString('hex')}`;
}

/** Whether `text` is an id as generateEndpointId makes them: anything else names no endpoint. */
export function isEndpointId(text: string | undefined): text is string {
  return text !== undefined && WEBHOOK_ENDPOINT_ID_PATTERN.test(text);
}
