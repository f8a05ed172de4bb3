// The package's entry point: the client, its error type and the types of what it returns.
export {
  DEFAULT_TIMEOUT_MS,
  StoreOrdersApiError,
  StoreOrdersClient,
  type ClientErrorCode,
  type ListedOrder,
  type OrderStatus,
  type RateLimitState,
  type RequestOptions,
  type RetryEvent,
  type StoreOrdersClientOptions,
  type CreatedWebhookEndpoint,
  type WebhookEndpointRequest,
  type WebhookEndpointView,
} from './client.ts';
export { verifyWebhook, type ReceivedHeaders, type ReceivedWebhookEvent } from './webhooks.ts';
export type { RetryPolicy } from './retry.ts';
export {
  applyChange,
  applyDeparture,
  applySync,
  type OrderPage,
  type OrderPageQuery,
  type SyncedListedOrder,
  type SyncResult,
} from './pages.ts';
