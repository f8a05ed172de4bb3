// The in-memory limiter store keeps the DynamoDB store's conditions (the same cases run against
// that one in test/integration/rate-limiter-store.spec.ts), as DynamoDB reports a failed condition
// and as the embedded server does (the item read after it).
import { InMemoryLimiterStore } from '../support/in-memory-limiter-store';
import { limiterStoreContract } from '../support/limiter-store-contract';

describe.each(['returned', 'read after'] as const)('in memory, failed conditions %s', (conditionFailures) => {
  const store = new InMemoryLimiterStore({ conditionFailures });
  limiterStoreContract(() => store);
});
