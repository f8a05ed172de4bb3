// The delivery's fan-out reads the enabled endpoints for every change the stream shows: through this
// cache, one index read per WEBHOOK_LIMITS.enabledEndpointsCacheMs at most, however many changes,
// and concurrent changes share the read in flight. A read that fails is not cached.
import { WEBHOOK_LIMITS, type WebhookEventType } from '../contract/webhooks';
import type { EnabledEndpoint } from './webhook-endpoints';

export class EnabledEndpointsCache {
  private held: { readAt: number; endpoints: Promise<EnabledEndpoint[]> } | undefined;

  constructor(
    /** The index read (WebhookEndpointsRepository.listEnabled). */
    private readonly read: () => Promise<EnabledEndpoint[]>,
    private readonly now: () => number,
    private readonly maxAgeMs: number = WEBHOOK_LIMITS.enabledEndpointsCacheMs,
  ) {}

  /** Every enabled endpoint, as read at most `maxAgeMs` ago. */
  all(): Promise<EnabledEndpoint[]> {
    const now = this.now();
    if (this.held && now - this.held.readAt < this.maxAgeMs) return this.held.endpoints;
    const endpoints = this.read();
    const held = { readAt: now, endpoints };
    this.held = held;
    endpoints.catch(() => {
      if (this.held === held) this.held = undefined;
    });
    return endpoints;
  }

  /** The enabled endpoints that want events of `type`. */
  async wanting(type: WebhookEventType): Promise<EnabledEndpoint[]> {
    return (await this.all()).filter((endpoint) => endpoint.eventTypes.includes(type));
  }
}
