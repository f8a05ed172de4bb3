// A world for event delivery through the local stack, no kinder than AWS: the orders table's stream
// read by the fan-out (and the sync watch) as Lambda's event source mapping reads it, the delivery
// queue emulated as SQS (duplicates, any order, visibility timeouts, timers), and receivers on this
// machine's loopback that verify every delivery with the `standardwebhooks` package, at the world's
// time, and keep a replica of the orders by the rule docs/api.md gives (apply an event when its
// updatedAt is later than the copy held). Time is a manual clock with its own timers: `runFor` moves
// it from one due batch, message or timer to the next, delivering what is due at each, without
// waiting for real time.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook, type ReceivedWebhookEvent } from '../../client/webhooks';
import type { Timers } from '../../lib/commons/timers';
import { MAX_CUSTOM_LIMITS } from '../../lib/contract/plans';
import { V2_BASE_PATH, WEBHOOK_ENDPOINTS_PATH } from '../../lib/contract/routes';
import type { SyncedOrder } from '../../lib/contract/synced-order';
import { WEBHOOK_HEADERS, type WebhookEndpointView, type WebhookEventType } from '../../lib/contract/webhooks';
import type { WebhookDeliveryAttempt } from '../../lib/contract/webhook-delivery';
import { bearer, startLocalStack, testClock, type LocalStack, type LocalStackOptions } from './local-stack';
import { syncedOrdersById } from './orders-table';

/** Timers on the world's manual clock: they fire as `runFor` moves it. */
export class ManualTimers implements Timers {
  private pending: { at: number; fire: () => void }[] = [];
  constructor(readonly now: () => number) {}
  readonly after = (ms: number, fire: () => void): (() => void) => {
    const timer = { at: this.now() + Math.max(0, ms), fire };
    this.pending.push(timer);
    return () => {
      this.pending = this.pending.filter((t) => t !== timer);
    };
  };
  nextAt(): number | undefined {
    return this.pending.reduce<number | undefined>((next, t) => Math.min(next ?? t.at, t.at), undefined);
  }
  fireDue(): void {
    const due = this.pending.filter((t) => t.at <= this.now());
    this.pending = this.pending.filter((t) => t.at > this.now());
    for (const timer of due) timer.fire();
  }
}

/** One delivery as a receiver got it. */
export interface Received {
  at: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the `standardwebhooks` package accepted it, at the world's time. */
  verified: boolean;
  event?: ReceivedWebhookEvent;
}

/** What a receiver answers: a status (200 by default), one with headers, or `hang` (no answer at all). */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang';

export interface Receiver {
  url: string;
  secret: string;
  received: Received[];
  /** The orders as the receiver's replica holds them: each applied when later than the copy held. */
  replica: Map<string, SyncedOrder>;
  /** How it answers the next request (200 unless set). */
  answer: (received: Received) => Answer;
  /** Refuses connections (its server closed) until `up()`. */
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Verifies a delivery as a receiver would, with the typed client's helper on the `standardwebhooks`
 * package (which reads Date.now for the timestamp's age), as if the receiver's clock read `nowMs`.
 */
export function verifyAt(nowMs: number, secret: string, body: string, headers: Record<string, string>) {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(nowMs);
  try {
    return verifyWebhook(secret, body, headers);
  } finally {
    spy.mockRestore();
  }
}

const plainHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)]));

export interface WebhookWorld {
  stack: LocalStack;
  key: string;
  timers: ManualTimers;
  /** A receiver on a free loopback port, with an endpoint registered for it (all types unless given). */
  receiver(eventTypes?: WebhookEventType[]): Promise<Receiver & { endpoint: WebhookEndpointView }>;
  /** Moves the clock `ms` on, delivering every batch, message and timer as it comes due. */
  runFor(ms: number): Promise<void>;
  /** Delivers what is due now, until nothing more is. */
  settle(): Promise<void>;
  /** The deliveries log of an endpoint, through the API. */
  deliveries(endpointId: string): Promise<WebhookDeliveryAttempt[]>;
  /** The orders as the store has them. */
  store(): Promise<Map<string, SyncedOrder>>;
  close(): Promise<void>;
}

export async function startWebhookWorld(options: LocalStackOptions = {}): Promise<WebhookWorld> {
  const clock = options.clock ?? testClock(Date.now());
  const timers = new ManualTimers(clock.now);
  const stack = await startLocalStack({ dynamo: { stream: {} }, ...options, clock, timers });
  const { key } = await stack.newKey('enterprise', MAX_CUSTOM_LIMITS);
  const receivers: Receiver[] = [];
  const mappings = () => [...Object.values(stack.app.streamMappings), stack.app.webhookQueue.mapping];

  const settle = async () => {
    for (let round = 0; round < 1000; round++) {
      const due = mappings().filter((m) => (m.nextDueAt() ?? Infinity) <= clock.now());
      if (due.length === 0) return;
      for (const mapping of due) await mapping.deliverDue();
    }
    throw new Error('Deliveries kept coming due at one instant');
  };

  async function receiver(eventTypes?: WebhookEventType[]) {
    const received: Received[] = [];
    const replica = new Map<string, SyncedOrder>();
    let secret = '';
    const server: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = plainHeaders(request.headers);
        const delivery: Received = { at: clock.now(), headers, body, verified: false };
        try {
          delivery.event = verifyAt(clock.now(), secret, body, headers);
          delivery.verified = true;
        } catch {
          delivery.verified = false;
        }
        received.push(delivery);
        const answer = self.answer(delivery);
        if (answer === 'hang') return;
        const { status, headers: answerHeaders = {} } = typeof answer === 'number' ? { status: answer } : answer;
        // An acknowledged order event is applied by the rule docs/api.md gives.
        const order = delivery.event && 'id' in delivery.event.data ? delivery.event.data : undefined;
        if (status >= 200 && status < 300 && order?.updatedAt !== undefined) {
          const held = replica.get(order.id);
          if (held?.updatedAt === undefined || held.updatedAt < order.updatedAt) replica.set(order.id, order);
        }
        response.writeHead(status, answerHeaders).end();
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const url = `http://127.0.0.1:${port}/hooks`;
    const created = await stack.call(
      'POST',
      `${V2_BASE_PATH}${WEBHOOK_ENDPOINTS_PATH}`,
      { ...bearer(key), 'Content-Type': 'application/json' },
      JSON.stringify({ url, ...(eventTypes ? { eventTypes } : {}) }),
    );
    expect(created.status).toBe(201);
    const endpoint = (await created.json()) as WebhookEndpointView & { secret: string };
    secret = endpoint.secret;
    const self: Receiver & { endpoint: WebhookEndpointView } = {
      url,
      secret,
      received,
      replica,
      endpoint,
      answer: () => 200,
      down: async () => {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      },
      up: async () => {
        server.listen(port, '127.0.0.1');
        await once(server, 'listening');
      },
      close: async () => {
        server.closeAllConnections();
        if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      },
    };
    receivers.push(self);
    return self;
  }

  return {
    stack,
    key,
    timers,
    receiver,
    settle,
    runFor: async (ms) => {
      const end = clock.now() + ms;
      for (;;) {
        await settle();
        timers.fireDue();
        const next = Math.min(...mappings().map((m) => m.nextDueAt() ?? Infinity), timers.nextAt() ?? Infinity);
        if (next > end) break;
        clock.set(Math.max(clock.now(), next));
      }
      clock.set(end);
      timers.fireDue();
      await settle();
    },
    deliveries: async (endpointId) => {
      const path = `${V2_BASE_PATH}${WEBHOOK_ENDPOINTS_PATH}/${endpointId}/deliveries`;
      const response = await stack.call('GET', path, bearer(key));
      expect(response.status).toBe(200);
      return ((await response.json()) as { deliveries: WebhookDeliveryAttempt[] }).deliveries;
    },
    store: () => syncedOrdersById(stack.tables.client, stack.tables.names.orders),
    close: async () => {
      await Promise.all(receivers.map((r) => r.close()));
      await stack.close();
    },
  };
}

/** The header of a delivery that names its event. */
export const eventIdOf = (received: Received) => received.headers[WEBHOOK_HEADERS.id];
