// A lease write that DynamoDB applies only after the SDK gave up on it (the attempt's timeout ran
// out, the SDK's retry took the slot, the listing ran and freed it): that first attempt must not
// land in the freed slot and hold it for the lease's whole life (issue: "a late lease write locks a
// key out"). Against the embedded server; the late attempt is replayed by hand after the listing.
import { PutItemCommand, type PutItemCommandInput } from '@aws-sdk/client-dynamodb';
import { LISTINGS_IN_FLIGHT } from '../../lib/contract/plans';
import { MAX_ATTEMPTS } from '../../lib/stores/dynamo';
import { TooManyListingsError, type ListingsInFlight } from '../../lib/stores/listings-in-flight';
import { documentClient } from '../../lib/root/wiring';
import { isConditionFailure } from '../../lib/stores/conditional';
import { createTestTables, type TestTables } from '../support/dynamo';
import { testClock } from '../support/local-stack';

let tables: TestTables;
/** Leases on a client with no fault. */
let listings: ListingsInFlight;
const clock = testClock();
const cap = LISTINGS_IN_FLIGHT.free;

beforeAll(async () => {
  tables = await createTestTables();
  listings = tables.stores({ now: clock.now }).listings;
});
afterAll(() => tables.drop());

/**
 * Leases on a client whose first `late` PutItem attempts time out before reaching the table; each is
 * kept, to be applied later by `land()`, as DynamoDB applies a request it received late.
 */
function lateLeases(late: number) {
  const stores = tables.stores({ now: clock.now });
  // Marshalled already: the document client converts its input before this step.
  const held: PutItemCommandInput[] = [];
  documentClient(stores.wiring).middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'PutItemCommand' && held.length < late) {
        held.push(structuredClone(args.input) as PutItemCommandInput);
        throw Object.assign(new Error('attempt timed out'), { name: 'TimeoutError' });
      }
      return next(args);
    },
    // Inside the retry loop: each attempt passes here.
    { step: 'finalizeRequest', name: 'lateLeaseWrites', priority: 'low' },
  );
  return {
    listings: stores.listings,
    held,
    /** Applies the held attempts now, as DynamoDB would, whatever their outcome. */
    land: async () => {
      for (const input of held) {
        await tables.client.send(new PutItemCommand(input)).catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
      }
    },
  };
}

/** No slot of the key is held, and a listing takes one at once. */
async function expectListsAgain(keyId: string): Promise<void> {
  expect(await listings.held(keyId, cap)).toBe(0);
  await (await listings.acquire(keyId, cap)).release();
}

test('a first attempt applied after its retry served the listing does not take the freed slot', async () => {
  const late = lateLeases(1);
  const lease = await late.listings.acquire('key_late_lease', cap);
  expect(late.held).toHaveLength(1);
  await lease.release();
  await late.land();
  // The key lists again right after its first listing ended.
  await expectListsAgain('key_late_lease');
});

test('a listing whose every attempt was late is refused, and its attempts landing later take no slot', async () => {
  const late = lateLeases(MAX_ATTEMPTS);
  await expect(late.listings.acquire('key_all_late', cap)).rejects.toThrow('attempt timed out');
  await late.land();
  await expectListsAgain('key_all_late');
});

test('a freed slot is free for other listings, and a held one still refuses them', async () => {
  // Every slot of the key held, one after the other.
  const held = [];
  for (let n = 0; n < cap; n++) held.push(await listings.acquire('key_reuse', cap));
  await expect(listings.acquire('key_reuse', cap)).rejects.toBeInstanceOf(TooManyListingsError);
  const [first, ...others] = held;
  await first?.release();
  const second = await listings.acquire('key_reuse', cap);
  expect(await listings.held('key_reuse', cap)).toBe(cap);
  for (const lease of [second, ...others]) await lease.release();
  expect(await listings.held('key_reuse', cap)).toBe(0);
});
