import { isInteger, isLosslessNumber, parse, type LosslessNumber } from 'lossless-json';
import { ERROR_CODES, type ErrorCode } from '../lib/contract/errors.ts';
import { canonicalInt64, type Order, type OrderStatus } from '../lib/contract/order.ts';
import { listsDepartures } from '../lib/contract/sync.ts';
import { WEBHOOK_ENDPOINTS_PATH } from '../lib/contract/routes.ts';
import type { WebhookEndpointRequest, WebhookEndpointView } from '../lib/contract/webhooks.ts';
import type { WebhookDeliveryAttempt } from '../lib/contract/webhook-delivery.ts';
import { parseRetryAfter } from './retry-after.ts';
import { retryDelayMs, type RetryPolicy } from './retry.ts';
import { arrayElements, bodyChunks, bodyText, JsonStreamError, type Watch } from './stream.ts';
import { proxyRefusal, rawFetch } from './transport.ts';
import {
  pageUrl,
  v2BaseUrlOf,
  type OrderPage,
  type OrderPageQuery,
  type SyncedListedOrder,
  type SyncResult,
} from './pages.ts';

/**
 * An order as the API lists it: the fields of the service's Order model, ids as exact decimal
 * strings (never JS numbers). Every order has its `id` (the table's key) and `status`, so
 * `api.cancelOrder(order.id)` type-checks; a listed order without an id is UNEXPECTED_RESPONSE.
 * The other fields may be absent, and a field an order does not have is left out.
 */
export type ListedOrder = Pick<Order, 'id' | 'status'> & Partial<Omit<Order, 'id' | 'status'>>;
export type { OrderStatus };
export type { WebhookEndpointRequest, WebhookEndpointView, WebhookDeliveryAttempt };

/** An endpoint as its creation or a rotation answers it: with its signing secret, shown this once. */
export type CreatedWebhookEndpoint = WebhookEndpointView & { secret: string };

/** The rate-limit state of the last response that carried it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

/**
 * A code of the API's catalogue, or one of the client's own: `UNEXPECTED_RESPONSE` when the answer
 * was not an Error body or not the JSON the API sends, `NETWORK_ERROR` when no answer came (status
 * 0, the failure as `cause`), `TRUNCATED_RESPONSE` when a list stopped before its end (the server
 * failed mid-way, the connection was lost, the gzip body lacks its trailer): the orders a stream
 * already yielded are then not the whole store. `TIMEOUT` when nothing arrived for `timeoutMs`
 * (no answer, or a body that stalled), `ABORTED` when the caller's `signal` aborted the call (its
 * reason as `cause`).
 */
export type ClientErrorCode =
  ErrorCode | 'UNEXPECTED_RESPONSE' | 'NETWORK_ERROR' | 'TRUNCATED_RESPONSE' | 'TIMEOUT' | 'ABORTED';

// Fields are declared apart from the constructor's parameters (no parameter properties), so the
// sources stay plain TypeScript that Node's type stripping can run as they are.
export class StoreOrdersApiError extends Error {
  override readonly name = 'StoreOrdersApiError';
  readonly code: ClientErrorCode;
  /** The HTTP status, or 0 when no response came. */
  readonly status: number;
  /** Seconds the server asked to wait, when it said. */
  readonly retryAfterSeconds?: number;

  constructor(
    code: ClientErrorCode,
    status: number,
    message: string,
    retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.code = code;
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** What `onRetry` is told before each wait. */
export interface RetryEvent {
  /** The attempt that failed, counting from 1; the next one is `attempt + 1`. */
  attempt: number;
  /** The status of the failed attempt, or 0 when no response came. */
  status: number;
  /** How long the client now waits before retrying: the server's Retry-After when it sent one. */
  waitMs: number;
  error: StoreOrdersApiError;
}

/** What each call may be given. */
export interface RequestOptions {
  /** Aborts the call: the request in flight, the body being read, the wait before a retry. */
  signal?: AbortSignal;
  /** The client's `timeoutMs`, for this call. */
  timeoutMs?: number;
}

export interface StoreOrdersClientOptions extends Partial<RetryPolicy> {
  /** The server URL including the `/v1` prefix, e.g. `http://127.0.0.1:3000/v1`. */
  baseUrl: string;
  /** v2's (beta) URL; `baseUrl` with `/v1` replaced by `/v2` when absent. */
  v2BaseUrl?: string;
  apiKey: string;
  /**
   * The longest the client waits for the server to send anything, in ms: the answer's headers, then
   * each piece of its body. Every attempt has its own; default 30 000, `Infinity` for none. A call
   * may set its own.
   */
  timeoutMs?: number;
  /**
   * Replaces the client's transport (the global fetch, passing gzip bodies on undecoded). A fetch
   * that inflates gzip itself, as the global one does by default, hides a gzip body cut before its
   * trailer. Proxies are then that fetch's business: the client refuses none.
   */
  fetch?: typeof fetch;
  /** Uniform in [0, 1); for the jitter. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** The time in ms since the epoch; for a Retry-After given as a date. */
  now?: () => number;
  /** Arms the timer of one wait on the server (`timeoutMs`); returns what disarms it. For tests. */
  startTimer?: (ms: number, onTimeout: () => void) => () => void;
  /** Called before every wait between attempts; an exception thrown here stops the retries. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Listings this client runs at once (listOrders and listOrdersStream, until the stream ends);
   * further ones wait their turn inside the client. Default 1: every plan allows at least one
   * listing in progress per key, so the client's own calls never meet TOO_MANY_LISTINGS.
   */
  maxConcurrentListings?: number;
}

/** What a call is, for its retries and the 429 gates it waits for. */
type CallKind = 'listing' | 'page' | 'cancel' | 'create';

const DEFAULT_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };
export const DEFAULT_TIMEOUT_MS = 30_000;
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * 429s that hold back every call of the key until their Retry-After: the windows and the ban, and
 * the limit on the client's address (every call of this client comes from it).
 */
const KEY_WIDE_CODES: ReadonlySet<ClientErrorCode> = new Set([
  'RATE_LIMITED',
  'QUOTA_EXCEEDED',
  'KEY_TEMPORARILY_BANNED',
  'ADDRESS_RATE_LIMITED',
]);

/** A Retry-After the server gave, shared by the calls it concerns: none is sent before `untilMs`. */
interface Gate {
  untilMs: number;
  /** The answer that set it: what a call gets at once when the wait is longer than it would honour. */
  error: StoreOrdersApiError;
}

/** Failures that may pass on their own: tried again, within the policy. */
const RETRIED_CODES: ReadonlySet<ClientErrorCode> = new Set(['NETWORK_ERROR', 'TIMEOUT', 'TRUNCATED_RESPONSE']);

export class StoreOrdersClient {
  /** The rate-limit headers of the last response that had them; undefined before any. */
  lastRateLimit: RateLimitState | undefined;
  private readonly baseUrl: string;
  private readonly policy: RetryPolicy;
  private readonly fetchFn: typeof fetch;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private readonly startTimer: (ms: number, onTimeout: () => void) => () => void;

  private readonly options: StoreOrdersClientOptions;
  /** Set by a window's or the ban's 429: every call waits for it, so the client waits once, not once per call. */
  private keyGate: Gate | undefined;
  /** Set by TOO_MANY_LISTINGS (another client of the key is listing): the listings wait for it. */
  private listingGate: Gate | undefined;
  private readonly listingTurns: Turns;

  /**
   * Throws (one line) when HTTPS_PROXY or HTTP_PROXY is set but Node's fetch would ignore it: start
   * Node with NODE_USE_ENV_PROXY=1 to go through the proxy, or unset the variable.
   */
  constructor(options: StoreOrdersClientOptions) {
    this.options = options;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.policy = {
      maxRetries: options.maxRetries ?? DEFAULT_POLICY.maxRetries,
      baseDelayMs: options.baseDelayMs ?? DEFAULT_POLICY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_POLICY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_POLICY.maxRetryAfterMs,
    };
    if (options.fetch === undefined) {
      // The default transport sends as Node's fetch does: through a proxy only when Node was told to.
      const refusal = proxyRefusal(process.env);
      if (refusal !== undefined) throw new Error(refusal);
    }
    this.fetchFn = options.fetch ?? rawFetch;
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    const listings = options.maxConcurrentListings ?? 1;
    if (!(Number.isSafeInteger(listings) && listings >= 1))
      throw new TypeError(`maxConcurrentListings must be a positive integer, got ${listings}`);
    this.listingTurns = new Turns(listings);
    this.startTimer =
      options.startTimer ??
      ((ms, onTimeout) => {
        const timer = setTimeout(onTimeout, ms);
        return () => clearTimeout(timer);
      });
  }

  /** Every order in the store, with exact int64 ids, read and checked whole (retried as a whole). */
  async listOrders(options: RequestOptions = {}): Promise<ListedOrder[]> {
    const done = await this.listingTurns.take(options.signal);
    try {
      return await this.withRetries(options, 'listing', async (guard) => {
        const answer = await this.attempt('GET', '/store/orders', { 'Accept-Encoding': 'gzip' }, guard);
        if (answer instanceof StoreOrdersApiError) return answer;
        const text = await this.bodyOf(answer, guard);
        return text instanceof StoreOrdersApiError ? text : parseOrders(text);
      });
    } finally {
      done();
    }
  }

  /**
   * Every order in the store, parsed as the (gzip-compressed) body arrives, with exact int64 ids:
   * memory stays flat however large the store. Failures before the first order are retried as in
   * listOrders(); a list that stops part way throws TRUNCATED_RESPONSE (or TIMEOUT, ABORTED) after
   * the orders already yielded, never ends as if it were complete. Leaving the loop early closes the
   * connection. Only the waits on the server count toward the timeout, not the caller's time.
   */
  async *listOrdersStream(options: RequestOptions = {}): AsyncGenerator<ListedOrder> {
    const done = await this.listingTurns.take(options.signal);
    try {
      yield* this.streamOrders(options);
    } finally {
      done();
    }
  }

  private async *streamOrders(options: RequestOptions): AsyncGenerator<ListedOrder> {
    const { response, guard } = await this.withRetries(options, 'listing', async (guard) => {
      const answer = await this.attempt('GET', '/store/orders', { 'Accept-Encoding': 'gzip' }, guard);
      if (answer instanceof StoreOrdersApiError) return answer;
      if (answer.ok) return { response: answer, guard };
      const failed = await this.bodyOf(answer, guard);
      return failed instanceof StoreOrdersApiError ? failed : toApiError(answer, failed, this.now());
    });
    try {
      for await (const batch of arrayElements(bodyText(bodyChunks(response.body, guard.watch)))) {
        for (const element of batch) {
          // A network chunk holds many orders: an abort stops the loop at the next one, not the chunk's end.
          if (options.signal?.aborted) throw abortedError(options.signal, response.status);
          yield toOrder(element);
        }
      }
    } catch (error) {
      throw streamFailure(error, response.status);
    }
  }

  /**
   * v2 (beta): the orders a page at a time, following each page's cursor to the last. With
   * `status` or `updatedSince` they come in ascending updatedAt. Each page is one request, retried
   * on its own like any read.
   */
  async *listOrderPages(query: OrderPageQuery = {}, options: RequestOptions = {}): AsyncGenerator<OrderPage> {
    const base = this.options.v2BaseUrl?.replace(/\/+$/, '') ?? v2BaseUrlOf(this.baseUrl);
    let url: string | undefined = pageUrl(base, query);
    while (url !== undefined) {
      const target: string = url;
      const page = await this.withRetries(options, 'page', async (guard) => {
        const answer = await this.attempt('GET', target, {}, guard);
        if (answer instanceof StoreOrdersApiError) return answer;
        const text = await this.bodyOf(answer, guard);
        return text instanceof StoreOrdersApiError ? text : parsePage(text);
      });
      yield page;
      url = page.nextCursor === undefined ? undefined : pageUrl(base, query, page.nextCursor);
    }
  }

  /**
   * v2 (beta): one walk of the orders changed at or after `since` (an RFC 3339 date-time; the
   * epoch for a first sync), and the server's watermark to give as `since` next time. With
   * `status`, also the orders that left it since `since` (`departed`). Apply the result with
   * `applySync` (each order with `applyChange`, then each departure with `applyDeparture`): a
   * change may come again, never out of date (docs/client.md).
   */
  async syncOrders(
    { since, status, limit }: { since: string } & Omit<OrderPageQuery, 'updatedSince'>,
    options: RequestOptions = {},
  ): Promise<SyncResult> {
    const orders: SyncResult['orders'] = [];
    const departed: SyncResult['departed'] = [];
    const query: OrderPageQuery = { updatedSince: since, ...(status ? { status } : {}), ...(limit ? { limit } : {}) };
    let watermark: string | undefined;
    for await (const page of this.listOrderPages(query, options)) {
      if (listsDepartures(query) && page.departed === undefined)
        throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'A page of a status sync carries no departed list');
      orders.push(...page.orders);
      departed.push(...(page.departed ?? []));
      watermark = page.watermark;
    }
    if (watermark === undefined)
      throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The last page of the walk carries no watermark');
    return { orders, departed, watermark };
  }

  /**
   * Cancels a pending order; resolves too when it was already cancelled (DELETE is idempotent).
   * The id is checked before anything is sent: a JS number above 2^53 has already lost digits
   * and would name another order, so a number is taken only when it is a safe integer.
   */
  async cancelOrder(id: string | bigint | number, options: RequestOptions = {}): Promise<void> {
    const path = `/store/orders/${orderIdText(id)}`;
    await this.withRetries(options, 'cancel', async (guard) => {
      const answer = await this.attempt('DELETE', path, {}, guard);
      if (answer instanceof StoreOrdersApiError) return answer;
      const text = await this.bodyOf(answer, guard);
      return text instanceof StoreOrdersApiError ? text : undefined;
    });
  }

  /**
   * v2 (beta): registers a webhook endpoint for this client's key. The answer carries the signing
   * secret, shown this once. Not retried after a 5xx or a lost answer (the endpoint may have been
   * made: list before trying again); a 429 is, as nothing was done.
   */
  async createWebhookEndpoint(
    request: WebhookEndpointRequest,
    options: RequestOptions = {},
  ): Promise<CreatedWebhookEndpoint> {
    const body = JSON.stringify(request);
    return (await this.webhookCall('POST', '', 'create', options, body)) as CreatedWebhookEndpoint;
  }

  /** v2 (beta): this key's webhook endpoints, oldest first, without their secrets. */
  async listWebhookEndpoints(options: RequestOptions = {}): Promise<WebhookEndpointView[]> {
    return ((await this.webhookCall('GET', '', 'page', options)) as { endpoints: WebhookEndpointView[] }).endpoints;
  }

  /** v2 (beta): one endpoint of this key (WEBHOOK_ENDPOINT_NOT_FOUND for any other). */
  async getWebhookEndpoint(id: string, options: RequestOptions = {}): Promise<WebhookEndpointView> {
    return (await this.webhookCall('GET', `/${encodeURIComponent(id)}`, 'page', options)) as WebhookEndpointView;
  }

  /** v2 (beta): deletes an endpoint of this key; resolves too when it was deleted already. */
  async deleteWebhookEndpoint(id: string, options: RequestOptions = {}): Promise<void> {
    await this.webhookCall('DELETE', `/${encodeURIComponent(id)}`, 'cancel', options);
  }

  /** v2 (beta): a new signing secret, shown this once; the previous one signs beside it for a while. */
  async rotateWebhookEndpointSecret(id: string, options: RequestOptions = {}): Promise<CreatedWebhookEndpoint> {
    const path = `/${encodeURIComponent(id)}/rotate-secret`;
    return (await this.webhookCall('POST', path, 'create', options)) as CreatedWebhookEndpoint;
  }

  /**
   * v2 (beta): the endpoint's latest delivery attempts, newest first (outcome, latency, response
   * code, next retry); order ids as exact decimal strings.
   */
  async listWebhookDeliveries(id: string, options: RequestOptions = {}): Promise<WebhookDeliveryAttempt[]> {
    const path = `/${encodeURIComponent(id)}/deliveries`;
    return ((await this.webhookCall('GET', path, 'page', options)) as { deliveries: WebhookDeliveryAttempt[] })
      .deliveries;
  }

  /** v2 (beta): queues a test event for the endpoint; its id, the `webhook-id` the endpoint receives. */
  async sendWebhookTestEvent(id: string, options: RequestOptions = {}): Promise<{ eventId: string }> {
    const path = `/${encodeURIComponent(id)}/test`;
    return (await this.webhookCall('POST', path, 'create', options)) as { eventId: string };
  }

  /** One call of the webhook endpoint routes: its JSON answer (undefined for a 204). */
  private async webhookCall(
    method: string,
    below: string,
    kind: CallKind,
    options: RequestOptions,
    body?: string,
  ): Promise<unknown> {
    const base = this.options.v2BaseUrl?.replace(/\/+$/, '') ?? v2BaseUrlOf(this.baseUrl);
    const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
    return this.withRetries(options, kind, async (guard) => {
      const answer = await this.attempt(method, `${base}${WEBHOOK_ENDPOINTS_PATH}${below}`, headers, guard, body);
      if (answer instanceof StoreOrdersApiError) return answer;
      const text = await this.bodyOf(answer, guard);
      if (text instanceof StoreOrdersApiError) return text;
      try {
        // Order ids (a deliveries list's) as exact digits: lossless numbers, written back as text.
        return text === '' ? undefined : (parse(text, exactOrderIds) as unknown);
      } catch (cause) {
        return new StoreOrdersApiError('UNEXPECTED_RESPONSE', answer.status, 'The answer is not JSON', undefined, {
          cause,
        });
      }
    });
  }

  /**
   * Both operations are idempotent, so failures that may pass (429, 5xx, a lost connection, a
   * timeout, a cut body) are retried, within the policy's bounds. Other 4xx would fail again the
   * same way, and an abort is the caller's: never retried.
   */
  private async withRetries<T>(
    options: RequestOptions,
    kind: CallKind,
    attemptOnce: (guard: AttemptGuard) => Promise<T | StoreOrdersApiError>,
  ): Promise<T> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!(timeoutMs > 0))
      throw new TypeError(`timeoutMs must be a positive number of milliseconds (Infinity for none), got ${timeoutMs}`);
    /** The gate this call's own last wait was for: waited out already, whatever the clock says. */
    let waitedFor: Gate | undefined;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortedError(signal, 0);
      await this.passGates(kind, signal, waitedFor);
      const outcome = await attemptOnce(new AttemptGuard(this.baseUrl, timeoutMs, signal, this.startTimer));
      if (!(outcome instanceof StoreOrdersApiError)) return outcome;
      waitedFor = this.noteGate(outcome);
      const { status, retryAfterSeconds: retryAfter } = outcome;
      // A create that failed may have been made: only a refusal before any work (429) is tried again.
      const retryable =
        kind === 'create' ? status === 429 : RETRIED_CODES.has(outcome.code) || status === 429 || status >= 500;
      const waitMs =
        retryable && outcome.code !== 'ABORTED'
          ? retryDelayMs(this.policy, attempt - 1, retryAfter, this.random)
          : undefined;
      if (waitMs === undefined) throw outcome;
      this.options.onRetry?.({ attempt, status, waitMs, error: outcome });
      await untilAborted(this.sleep(waitMs), signal);
    }
  }

  /**
   * A 429 with Retry-After holds back the calls it concerns, not only its own: the windows' and
   * the ban's every call of the key, TOO_MANY_LISTINGS the listings. So concurrent calls wait once
   * together instead of each meeting its own refusal, which would count toward a ban. Returns the
   * gate this call's own wait for `error` covers (none when a later one holds).
   */
  private noteGate(error: StoreOrdersApiError): Gate | undefined {
    if (error.status !== 429 || error.retryAfterSeconds === undefined) return undefined;
    const untilMs = this.now() + error.retryAfterSeconds * 1000;
    const gate = { untilMs, error };
    if (KEY_WIDE_CODES.has(error.code)) {
      if (!this.keyGate || this.keyGate.untilMs < untilMs) this.keyGate = gate;
      return this.keyGate.untilMs <= untilMs ? this.keyGate : undefined;
    }
    if (error.code === 'TOO_MANY_LISTINGS') {
      if (!this.listingGate || this.listingGate.untilMs < untilMs) this.listingGate = gate;
      return this.listingGate.untilMs <= untilMs ? this.listingGate : undefined;
    }
    return undefined;
  }

  /**
   * Waits until the gates that concern this call are open. A wait longer than `maxRetryAfterMs` is
   * not made: the call fails at once with the answer that set the gate, as its own retry would.
   */
  private async passGates(kind: CallKind, signal: AbortSignal | undefined, waitedFor: Gate | undefined): Promise<void> {
    // Each gate is waited for once: a later one set meanwhile is waited for in turn.
    const waited = new Set<Gate | undefined>([undefined, waitedFor]);
    for (;;) {
      const gates = kind === 'listing' ? [this.keyGate, this.listingGate] : [this.keyGate];
      const latest = gates
        .filter((gate): gate is Gate => !waited.has(gate) && (gate?.untilMs ?? 0) > this.now())
        .sort((a, b) => b.untilMs - a.untilMs)[0];
      if (!latest) return;
      const waitMs = latest.untilMs - this.now();
      if (waitMs > this.policy.maxRetryAfterMs) throw latest.error;
      waited.add(latest);
      await untilAborted(this.sleep(waitMs), signal);
    }
  }

  /** The answer with its body still to be read, or the error of this attempt. */
  private async attempt(
    method: string,
    path: string,
    headers: Record<string, string>,
    guard: AttemptGuard,
    body?: string,
  ): Promise<Response | StoreOrdersApiError> {
    try {
      const response = await guard.watch(
        this.fetchFn(/^https?:/.test(path) ? path : `${this.baseUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json', ...headers },
          signal: guard.signal,
          ...(body !== undefined ? { body } : {}),
        }),
      );
      this.noteRateLimit(response.headers);
      return response;
    } catch (cause) {
      return guard.failure(cause, 0);
    }
  }

  /** The text of a 2xx answer, or the error the answer or the reading of its body makes. */
  private async bodyOf(response: Response, guard: AttemptGuard): Promise<string | StoreOrdersApiError> {
    let text = '';
    try {
      for await (const part of bodyText(bodyChunks(response.body, guard.watch))) text += part;
    } catch (cause) {
      if (cause instanceof JsonStreamError)
        return new StoreOrdersApiError(
          cause.kind === 'truncated' ? 'TRUNCATED_RESPONSE' : 'UNEXPECTED_RESPONSE',
          response.status,
          `The body of the HTTP ${response.status} answer was unusable: ${cause.message}`,
          parseRetryAfter(response.headers.get('retry-after'), this.now()),
          { cause },
        );
      // A connection lost while the body streams is a network failure too.
      return guard.failure(cause, response.status);
    }
    return response.ok ? text : toApiError(response, text, this.now());
  }

  private noteRateLimit(headers: Headers): void {
    const [limit, remaining, reset] = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) =>
      Number(headers.get(name) ?? Number.NaN),
    );
    if (Number.isFinite(limit) && Number.isFinite(remaining) && Number.isFinite(reset)) {
      this.lastRateLimit = { limit: limit as number, remaining: remaining as number, reset: reset as number };
    }
  }
}

/** A fixed number of turns, handed out in the order asked for; a caller's abort leaves the queue. */
class Turns {
  private free: number;
  private readonly waiting: { start: () => void }[] = [];

  constructor(turns: number) {
    this.free = turns;
  }

  /** Resolves with the way to give the turn back, once one is free. */
  async take(signal: AbortSignal | undefined): Promise<() => void> {
    if (signal?.aborted) throw abortedError(signal, 0);
    if (this.free > 0) {
      this.free--;
    } else {
      const waiter = { start: () => {} };
      const started = new Promise<void>((resolve) => (waiter.start = resolve));
      this.waiting.push(waiter);
      try {
        await untilAborted(started, signal);
      } catch (error) {
        const index = this.waiting.indexOf(waiter);
        // Aborted while queued: leave the queue; aborted just as its turn came: give the turn on.
        if (index >= 0) this.waiting.splice(index, 1);
        else this.give();
        throw error;
      }
    }
    let given = false;
    return () => {
      if (!given) this.give();
      given = true;
    };
  }

  private give(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.free++;
  }
}

/**
 * One attempt's limits: the caller's signal and the timeout, which restarts with each wait on the
 * server. Either one aborts the attempt's own signal, so the request or body in flight is dropped.
 */
class AttemptGuard {
  private readonly controller = new AbortController();
  readonly signal = this.controller.signal;

  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly startTimer: (ms: number, onTimeout: () => void) => () => void;

  constructor(
    baseUrl: string,
    timeoutMs: number,
    callerSignal: AbortSignal | undefined,
    startTimer: (ms: number, onTimeout: () => void) => () => void,
  ) {
    this.baseUrl = baseUrl;
    this.timeoutMs = timeoutMs;
    this.callerSignal = callerSignal;
    this.startTimer = startTimer;
  }

  /** `waiting`, unless the caller aborts or it takes longer than the timeout: then a typed error. */
  readonly watch: Watch = <T>(waiting: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const caller = this.callerSignal;
      const stop = (error: StoreOrdersApiError) => {
        settle();
        this.controller.abort(error);
        reject(error);
      };
      const onAbort = () => caller && stop(abortedError(caller, 0));
      // setTimeout takes a delay past 2^31 - 1 ms (Infinity included) as 1 ms: that is no timeout.
      const disarm =
        this.timeoutMs <= MAX_TIMER_MS
          ? this.startTimer(this.timeoutMs, () =>
              stop(new StoreOrdersApiError('TIMEOUT', 0, `Nothing came from ${this.baseUrl} for ${this.timeoutMs} ms`)),
            )
          : undefined;
      const settle = () => {
        disarm?.();
        caller?.removeEventListener('abort', onAbort);
      };
      // Handled even when the call is already aborted: the abort makes fetch reject `waiting` too.
      waiting.then(
        (value) => {
          settle();
          resolve(value);
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
      if (caller?.aborted) return onAbort();
      caller?.addEventListener('abort', onAbort, { once: true });
    });

  /** What a failure of the request or its body is: the timeout, the caller's abort, or the network. */
  failure(cause: unknown, status: number): StoreOrdersApiError {
    const reason = this.signal.aborted ? (this.signal.reason as unknown) : undefined;
    if (cause instanceof StoreOrdersApiError) return withStatus(cause, status);
    if (reason instanceof StoreOrdersApiError) return withStatus(reason, status);
    if (this.callerSignal?.aborted) return abortedError(this.callerSignal, status);
    return new StoreOrdersApiError(
      'NETWORK_ERROR',
      status,
      `No response from ${this.baseUrl}: ${failureDetail(cause)}`,
      undefined,
      {
        cause,
      },
    );
  }
}

function withStatus(error: StoreOrdersApiError, status: number): StoreOrdersApiError {
  return error.status === status
    ? error
    : new StoreOrdersApiError(error.code, status, error.message, error.retryAfterSeconds, { cause: error.cause });
}

function abortedError(signal: AbortSignal, status: number): StoreOrdersApiError {
  return new StoreOrdersApiError('ABORTED', status, 'The call was aborted by its signal', undefined, {
    cause: signal.reason,
  });
}

/** `waiting`, or ABORTED as soon as the caller's signal aborts. */
function untilAborted<T>(waiting: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return waiting;
  if (signal.aborted) return Promise.reject(abortedError(signal, 0));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedError(signal, 0));
    signal.addEventListener('abort', onAbort, { once: true });
    waiting.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/** The id as canonical int64 digits, or a TypeError before any request is made. */
function orderIdText(id: unknown): string {
  const text =
    typeof id === 'bigint' || (typeof id === 'number' && Number.isSafeInteger(id))
      ? String(id)
      : typeof id === 'string'
        ? id
        : undefined;
  const canonical = text === undefined ? undefined : canonicalInt64(text);
  if (canonical !== undefined) return canonical;
  const got =
    typeof id === 'number'
      ? `the number ${id}, which is not a safe integer (above 2^53 it has already lost digits)`
      : typeof id === 'string' || typeof id === 'bigint'
        ? `${typeof id === 'string' ? JSON.stringify(clipped(id)) : `${clipped(String(id))}n`}, which is not a canonical int64`
        : `a value of type ${id === null ? 'null' : typeof id}`;
  throw new TypeError(
    `cancelOrder needs the order id as a string of decimal digits or a bigint, in the int64 range (a number only when it is a safe integer); got ${got}`,
  );
}

/** At most 40 characters of a caller's value, and its length when longer: an error never echoes 100k digits. */
function clipped(text: string): string {
  return text.length <= 40 ? text : `${text.slice(0, 40)}… (${text.length} characters)`;
}

/**
 * What went wrong, from fetch's TypeError and its cause (ECONNREFUSED, ...), without any header.
 * Duck-typed: the error may come from another realm (a test sandbox, an injected fetch).
 */
function failureDetail(failure: unknown): string {
  const message = fieldOf(failure, 'message');
  if (typeof message !== 'string') return String(failure);
  const code = fieldOf(fieldOf(failure, 'cause'), 'code');
  return typeof code === 'string' ? `${message} (${code})` : message;
}

function fieldOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** A streamed list that failed while being read: cut short, or not the list the API sends. */
function streamFailure(error: unknown, status: number): StoreOrdersApiError {
  if (error instanceof StoreOrdersApiError) return withStatus(error, status);
  if (error instanceof JsonStreamError && error.kind === 'malformed')
    return new StoreOrdersApiError('UNEXPECTED_RESPONSE', status, error.message);
  const detail =
    error instanceof JsonStreamError
      ? error.message
      : `the connection or its decompression failed: ${failureDetail(error)}`;
  return new StoreOrdersApiError('TRUNCATED_RESPONSE', status, `The order list was cut short: ${detail}`, undefined, {
    cause: error,
  });
}

function toApiError(response: Response, text: string, nowMs: number): StoreOrdersApiError {
  const wait = parseRetryAfter(response.headers.get('retry-after'), nowMs);
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if ((ERROR_CODES as unknown[]).includes(body.code) && typeof body.message === 'string') {
      return new StoreOrdersApiError(body.code as ErrorCode, response.status, body.message, wait);
    }
  } catch {
    // Not JSON: a proxy's page, for example. Reported below without its text.
  }
  return new StoreOrdersApiError(
    'UNEXPECTED_RESPONSE',
    response.status,
    `Unexpected HTTP ${response.status} response`,
    wait,
  );
}

/** Ids go from the JSON digits to decimal strings without passing through a JS number. */
function parseOrders(text: string): ListedOrder[] {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (cause) {
    throw new StoreOrdersApiError(
      'UNEXPECTED_RESPONSE',
      200,
      `The order list is not JSON: ${failureDetail(cause).slice(0, 200)}`,
      undefined,
      { cause },
    );
  }
  if (!Array.isArray(parsed))
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The order list is not a JSON array');
  return (parsed as unknown[]).map(toOrder);
}

/** A v2 page: `{"orders": [...], "nextCursor"?}`, ids exact. */
function parsePage(text: string): OrderPage {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (cause) {
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The page is not JSON', undefined, { cause });
  }
  const page = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  if (!Array.isArray(page.orders))
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The page has no orders array');
  if (page.departed !== undefined && !Array.isArray(page.departed))
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The page has a departed that is not an array');
  const orders = (page.orders as unknown[]).map(toSyncedOrder);
  const departed = page.departed === undefined ? {} : { departed: (page.departed as unknown[]).map(toSyncedOrder) };
  if (typeof page.nextCursor === 'string') return { orders, ...departed, nextCursor: page.nextCursor };
  return typeof page.watermark === 'string'
    ? { orders, ...departed, watermark: page.watermark }
    : { orders, ...departed };
}

/** One v2 order: the v1 fields and its updatedAt. */
export function toSyncedOrder(element: unknown): SyncedListedOrder {
  const order: SyncedListedOrder = toOrder(element);
  const updatedAt = (element as Record<string, unknown>).updatedAt;
  if (typeof updatedAt === 'string') order.updatedAt = updatedAt;
  return order;
}

/** A webhook route's answer read losslessly: `orderId` as its exact digits, every other number as a number. */
function exactOrderIds(key: string, value: unknown): unknown {
  if (!isLosslessNumber(value)) return value;
  return key === 'orderId' ? value.toString() : value.valueOf();
}

/** One element of the list, its numbers as lossless-json's LosslessNumber, as an order. */
function toOrder(value: unknown): ListedOrder {
  if (typeof value !== 'object' || value === null)
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order is not a JSON object');
  const item = value as Record<string, unknown>;
  if (item.id === undefined) throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order has no id');
  const order: ListedOrder = { id: int64Text(item.id), status: item.status as OrderStatus };
  if (item.petId !== undefined) order.petId = int64Text(item.petId);
  if (item.quantity !== undefined) order.quantity = Number(String(item.quantity));
  if (typeof item.shipDate === 'string') order.shipDate = item.shipDate;
  if (typeof item.complete === 'boolean') order.complete = item.complete;
  return order;
}

function int64Text(value: unknown): string {
  const text = (value as LosslessNumber | undefined)?.value;
  if (typeof text !== 'string' || !isInteger(text)) {
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order id is not an integer');
  }
  return BigInt(text).toString();
}
