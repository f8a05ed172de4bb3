// Domain errors of the webhook endpoints, each with the code it is answered with; the HTTP edge
// maps the code to a status. Each says exactly what is wrong: the answer carries its message.
import { CodedError } from '../../contract/errors';
import { WEBHOOK_LIMITS } from '../../contract/webhooks';

/** The request body is not an endpoint: not JSON, too large, an unknown field, a wrong type or a value out of bounds. */
export class InvalidWebhookEndpointError extends CodedError {
  override readonly name = 'InvalidWebhookEndpointError';
  constructor(reason: string) {
    super('INVALID_WEBHOOK_ENDPOINT', reason);
  }

  override answerMessage(): string {
    return this.message;
  }
}

/** A URL events may not go to: its scheme, its user or password, or an address its host resolves to. */
export class WebhookUrlRefusedError extends CodedError {
  override readonly name = 'WebhookUrlRefusedError';
  constructor(reason: string) {
    super('WEBHOOK_URL_REFUSED', reason);
  }

  override answerMessage(): string {
    return this.message;
  }
}

/** No endpoint of the caller's key has the id (another key's endpoint is not found either). */
export class WebhookEndpointNotFoundError extends CodedError {
  override readonly name = 'WebhookEndpointNotFoundError';
  constructor(readonly endpointId: string) {
    super('WEBHOOK_ENDPOINT_NOT_FOUND', `No webhook endpoint ${endpointId} of this key`);
  }
}

/** Every slot of the key holds an endpoint. */
export class TooManyWebhookEndpointsError extends CodedError {
  override readonly name = 'TooManyWebhookEndpointsError';
  constructor(readonly cap: number = WEBHOOK_LIMITS.endpointsPerKey) {
    super(
      'TOO_MANY_WEBHOOK_ENDPOINTS',
      `This API key already has ${cap} webhook endpoints, as many as a key may have: delete one first.`,
    );
  }

  override answerMessage(): string {
    return this.message;
  }
}

/** A value from the request, quoted for a message: at most 60 characters, and its length when longer. */
export function quoted(value: string): string {
  return value.length <= 60
    ? JSON.stringify(value)
    : `${JSON.stringify(value.slice(0, 60))}… (${value.length} characters)`;
}
