import { isInteger, parse, type LosslessNumber } from 'lossless-json';
import { ERROR_CODES, type ErrorCode } from '../lib/contract/errors';
import type { OrderStatus } from '../lib/orders/order';
import { retryDelayMs, type RetryPolicy } from './retry';

/**
 * An order as the API lists it. Ids are int64, so they are exact decimal strings here, never JS
 * numbers. Only `status` is always present (see the OpenAPI document); the other fields are left
 * out when an order does not have them.
 */
export interface Order {
  id?: string;
  petId?: string;
  quantity?: number;
  shipDate?: string;
  complete?: boolean;
  status: OrderStatus;
}

/** The rate-limit state of the last response that carried it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

/** A code of the API's catalogue, or the client's own when the answer was not an Error body. */
export type ClientErrorCode = ErrorCode | 'UNEXPECTED_RESPONSE';

export class StoreOrdersApiError extends Error {
  override readonly name = 'StoreOrdersApiError';
  constructor(
    readonly code: ClientErrorCode,
    readonly status: number,
    message: string,
    /** Seconds the server asked to wait, when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

export interface StoreOrdersClientOptions extends Partial<RetryPolicy> {
  /** The server URL including the `/v1` prefix, e.g. `http://127.0.0.1:3000/v1`. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Uniform in [0, 1); for the jitter. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const DEFAULT_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 200, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

export class StoreOrdersClient {
  /** The rate-limit headers of the last response that had them; undefined before any. */
  lastRateLimit: RateLimitState | undefined;
  private readonly baseUrl: string;
  private readonly policy: RetryPolicy;
  private readonly fetchFn: typeof fetch;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: StoreOrdersClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.policy = {
      maxRetries: options.maxRetries ?? DEFAULT_POLICY.maxRetries,
      baseDelayMs: options.baseDelayMs ?? DEFAULT_POLICY.baseDelayMs,
      maxDelayMs: options.maxDelayMs ?? DEFAULT_POLICY.maxDelayMs,
      maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_POLICY.maxRetryAfterMs,
    };
    this.fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Every order in the store, with exact int64 ids. */
  async listOrders(): Promise<Order[]> {
    const text = await this.request('GET', '/store/orders');
    return parseOrders(text);
  }

  /** Cancels a pending order; resolves too when it was already cancelled (DELETE is idempotent). */
  async cancelOrder(id: string | bigint): Promise<void> {
    await this.request('DELETE', `/store/orders/${encodeURIComponent(String(id))}`);
  }

  /**
   * Both operations are idempotent, so failures that may pass (429, 5xx, a lost connection) are
   * retried, within the policy's bounds. Other 4xx would fail again the same way: never retried.
   */
  private async request(method: string, path: string): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.fetchFn(`${this.baseUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json' },
        });
      } catch (error) {
        const delay = retryDelayMs(this.policy, attempt, undefined, this.random);
        if (delay === undefined) throw error;
        await this.sleep(delay);
        continue;
      }
      this.noteRateLimit(response.headers);
      const text = await response.text();
      if (response.ok) return text;
      const error = toApiError(response, text);
      const retryable = response.status === 429 || response.status >= 500;
      const delay = retryable ? retryDelayMs(this.policy, attempt, error.retryAfterSeconds, this.random) : undefined;
      if (delay === undefined) throw error;
      await this.sleep(delay);
    }
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

function retryAfterSeconds(header: string | null): number | undefined {
  if (header === null) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function toApiError(response: Response, text: string): StoreOrdersApiError {
  const wait = retryAfterSeconds(response.headers.get('retry-after'));
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if ((ERROR_CODES as unknown[]).includes(body.code) && typeof body.message === 'string') {
      return new StoreOrdersApiError(body.code as ErrorCode, response.status, body.message, wait);
    }
  } catch {
    // Not JSON: a proxy's page, for example. Reported below without its text.
  }
  return new StoreOrdersApiError('UNEXPECTED_RESPONSE', response.status, `Unexpected HTTP ${response.status} response`, wait);
}

/** Ids go from the JSON digits to decimal strings without passing through a JS number. */
function parseOrders(text: string): Order[] {
  const parsed = parse(text) as unknown;
  if (!Array.isArray(parsed)) throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The order list is not a JSON array');
  return (parsed as unknown[]).map((value) => {
    if (typeof value !== 'object' || value === null) throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order is not a JSON object');
    const item = value as Record<string, unknown>;
    const order: Order = { status: item.status as OrderStatus };
    if (item.id !== undefined) order.id = int64Text(item.id);
    if (item.petId !== undefined) order.petId = int64Text(item.petId);
    if (item.quantity !== undefined) order.quantity = Number(String(item.quantity));
    if (typeof item.shipDate === 'string') order.shipDate = item.shipDate;
    if (typeof item.complete === 'boolean') order.complete = item.complete;
    return order;
  });
}

function int64Text(value: unknown): string {
  const text = (value as LosslessNumber | undefined)?.value;
  if (typeof text !== 'string' || !isInteger(text)) {
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order id is not an integer');
  }
  return BigInt(text).toString();
}
