// The stores, each made once per wiring on first use. One factory each, marked pure, so esbuild
// drops the ones a function does not use and its bundle
// carries only the stores its handler reads.
import { ApiKeysRepository } from '../stores/api-keys';
import { ListingsInFlight } from '../stores/listings-in-flight';
import { OrdersRepository } from '../stores/orders';
import { PetsRepository } from '../stores/pets';
import { OrderPages } from '../stores/order-pages';
import { RateLimiter } from '../stores/rate-limiter';
import { StoreGrowth } from '../stores/store-growth';
import {
  clockOf,
  conditionFailuresOf,
  counterClient,
  documentClient,
  perWiring,
  stampClockOf,
  tableName,
} from './wiring';

export interface Stores {
  orders: OrdersRepository;
  pets: PetsRepository;
  keys: ApiKeysRepository;
  limiter: RateLimiter;
  listings: ListingsInFlight;
  pages: OrderPages;
}

export const ordersStore = /* @__PURE__ */ perWiring(
  (w) =>
    new OrdersRepository(documentClient(w), tableName(w, 'orders'), {
      clock: clockOf(w),
      stampClock: stampClockOf(w),
      writer: counterClient(w),
      conditionFailures: conditionFailuresOf(w),
      growth: new StoreGrowth(documentClient(w), tableName(w, 'rateLimits'), clockOf(w)),
    }),
);

export const petsStore = /* @__PURE__ */ perWiring((w) => new PetsRepository(documentClient(w), tableName(w, 'pets')));

export const keysStore = /* @__PURE__ */ perWiring(
  (w) => new ApiKeysRepository(documentClient(w), tableName(w, 'apiKeys')),
);

export const limiterStore = /* @__PURE__ */ perWiring(
  (w) => new RateLimiter(counterClient(w), tableName(w, 'rateLimits'), clockOf(w), conditionFailuresOf(w)),
);

/** Lease writes are idempotent, so they go through the retrying client (see listings-in-flight.ts). */
export const listingsStore = /* @__PURE__ */ perWiring(
  (w) => new ListingsInFlight(documentClient(w), tableName(w, 'rateLimits'), clockOf(w), w.stageListingsCap),
);

export const pagesStore = /* @__PURE__ */ perWiring((w) => new OrderPages(documentClient(w), tableName(w, 'orders')));
