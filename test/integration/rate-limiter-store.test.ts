// The DynamoDB limiter store's expressions on the embedded server, write by write: the same cases
// as the in-memory store's (test/support/limiter-store-contract.ts), so the algorithm's unit tests
// over that one hold here. Both server behaviours: the embedded server (the item read after a
// failed condition) and DynamoDB (the item returned with it).
import { createTestTables, type TestTables } from '../support/dynamo';
import { limiterStoreContract } from '../support/limiter-store-contract';
import { limiterStoreOn, SERVER_BEHAVIOURS } from '../support/limiter-clients';

let tables: TestTables;

beforeAll(async () => {
  tables = await createTestTables();
});
afterAll(() => tables.drop());

describe.each(SERVER_BEHAVIOURS)('on %s', (behaviour) => {
  let under: ReturnType<typeof limiterStoreOn>;
  beforeAll(() => {
    under = limiterStoreOn(behaviour, tables.endpoint, tables.names.rateLimits);
  });
  afterAll(() => under.doc.destroy());
  limiterStoreContract(() => under.store);
});
