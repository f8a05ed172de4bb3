import { isInteger, parse, type LosslessNumber } from 'lossless-json';
import { ERROR_CODES, type ErrorCode } from '../lib/contract/errors';
import { canonicalInt64, type Order, type OrderStatus } from '../lib/orders/order';
import { retryDelayMs, type RetryPolicy } from './retry';
import { arrayElementBatches, bodyChunks, bodyText, JsonStreamError } from './stream';

/**
 * An order as the API lists it: the fields of the service's Order model, ids as exact decimal
 * strings (never JS numbers). The document requires only `status`, so a consumer cannot rely on
 * the others; a field an order does not have is left out.
 */
export type ListedOrder = Pick<Order, 'status'> & Partial<Omit<Order, 'status'>>;
export type { OrderStatus };

/** The rate-limit state of the last response that carried it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix time in seconds at which the window resets. */
  reset: number;
}

/**
 * A code of the API's catalogue, or one of the client's own: `UNEXPECTED_RESPONSE` when the answer
 * was not an Error body, `NETWORK_ERROR` when no answer came (status 0, the failure as `cause`),
 * `TRUNCATED_RESPONSE` when a streamed list stopped before its end (the server failed mid-way or
 * the connection was lost): the orders already yielded are then not the whole store.
 */
export type ClientErrorCode = ErrorCode | 'UNEXPECTED_RESPONSE' | 'NETWORK_ERROR' | 'TRUNCATED_RESPONSE';

export class StoreOrdersApiError extends Error {
  override readonly name = 'StoreOrdersApiError';
  constructor(
    readonly code: ClientErrorCode,
    /** The HTTP status, or 0 when no response came. */
    readonly status: number,
    message: string,
    /** Seconds the server asked to wait, when it said. */
    readonly retryAfterSeconds?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
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

export interface StoreOrdersClientOptions extends Partial<RetryPolicy> {
  /** The server URL including the `/v1` prefix, e.g. `http://127.0.0.1:3000/v1`. */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof fetch;
  /** Uniform in [0, 1); for the jitter. */
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Called before every wait between attempts; an exception thrown here stops the retries. */
  onRetry?: (event: RetryEvent) => void;
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
  async listOrders(): Promise<ListedOrder[]> {
    const text = await this.request('GET', '/store/orders');
    return parseOrders(text);
  }

  /**
   * Every order in the store, parsed as the (gzip-compressed) body arrives, with exact int64 ids:
   * memory stays flat however large the store. Failures before the first order are retried as in
   * listOrders(); a list that stops part way throws TRUNCATED_RESPONSE after the orders already
   * yielded, never ends as if it were complete. Leaving the loop early closes the connection.
   */
  async *listOrdersStream(): AsyncGenerator<ListedOrder> {
    const response = await this.withRetries(() =>
      this.attempt('GET', '/store/orders', { 'Accept-Encoding': 'gzip' }, false),
    );
    try {
      for await (const batch of arrayElementBatches(bodyText(bodyChunks(response.body))))
        yield* parseOrders(`[${batch.join(',')}]`);
    } catch (error) {
      throw streamFailure(error, response.status);
    }
  }

  /**
   * Cancels a pending order; resolves too when it was already cancelled (DELETE is idempotent).
   * The id is checked before anything is sent: a JS number above 2^53 has already lost digits
   * and would name another order, so a number is taken only when it is a safe integer.
   */
  async cancelOrder(id: string | bigint | number): Promise<void> {
    await this.request('DELETE', `/store/orders/${orderIdText(id)}`);
  }

  /**
   * Both operations are idempotent, so failures that may pass (429, 5xx, a lost connection) are
   * retried, within the policy's bounds. Other 4xx would fail again the same way: never retried.
   */
  private async request(method: string, path: string): Promise<string> {
    return this.withRetries(() => this.attempt(method, path, {}, true));
  }

  private async withRetries<T>(attemptOnce: () => Promise<T | StoreOrdersApiError>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptOnce();
      if (!(outcome instanceof StoreOrdersApiError)) return outcome;
      const { status, retryAfterSeconds: retryAfter } = outcome;
      const retryable = outcome.code === 'NETWORK_ERROR' || status === 429 || status >= 500;
      const waitMs = retryable ? retryDelayMs(this.policy, attempt - 1, retryAfter, this.random) : undefined;
      if (waitMs === undefined) throw outcome;
      this.options.onRetry?.({ attempt, status, waitMs, error: outcome });
      await this.sleep(waitMs);
    }
  }

  /**
   * The body of a 2xx answer (or, with `readBody` false, the answer with its body still to be
   * read), or the error of this attempt.
   */
  private async attempt(
    method: string,
    path: string,
    headers: Record<string, string>,
    readBody: true,
  ): Promise<string | StoreOrdersApiError>;
  private async attempt(
    method: string,
    path: string,
    headers: Record<string, string>,
    readBody: false,
  ): Promise<Response | StoreOrdersApiError>;
  private async attempt(
    method: string,
    path: string,
    headers: Record<string, string>,
    readBody: boolean,
  ): Promise<string | Response | StoreOrdersApiError> {
    let response: Response;
    let text: string;
    try {
      response = await this.fetchFn(`${this.baseUrl}${path}`, {
        method,
        headers: { Authorization: `Bearer ${this.options.apiKey}`, Accept: 'application/json', ...headers },
      });
      this.noteRateLimit(response.headers);
      if (response.ok && !readBody) return response;
      // A connection lost while the body streams is a network failure too.
      text = await response.text();
    } catch (cause) {
      return new StoreOrdersApiError(
        'NETWORK_ERROR',
        0,
        `No response from ${this.baseUrl}: ${failureDetail(cause)}`,
        undefined,
        { cause },
      );
    }
    return response.ok ? text : toApiError(response, text);
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
        ? `${typeof id === 'string' ? JSON.stringify(id.slice(0, 40)) : `${id}n`}, which is not a canonical int64`
        : `a value of type ${id === null ? 'null' : typeof id}`;
  throw new TypeError(
    `cancelOrder needs the order id as a string of decimal digits or a bigint, in the int64 range (a number only when it is a safe integer); got ${got}`,
  );
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
  if (error instanceof StoreOrdersApiError) return error;
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
  return new StoreOrdersApiError(
    'UNEXPECTED_RESPONSE',
    response.status,
    `Unexpected HTTP ${response.status} response`,
    wait,
  );
}

/** Ids go from the JSON digits to decimal strings without passing through a JS number. */
function parseOrders(text: string): ListedOrder[] {
  const parsed = parse(text) as unknown;
  if (!Array.isArray(parsed))
    throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'The order list is not a JSON array');
  return (parsed as unknown[]).map((value) => {
    if (typeof value !== 'object' || value === null)
      throw new StoreOrdersApiError('UNEXPECTED_RESPONSE', 200, 'An order is not a JSON object');
    const item = value as Record<string, unknown>;
    const order: ListedOrder = { status: item.status as OrderStatus };
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
