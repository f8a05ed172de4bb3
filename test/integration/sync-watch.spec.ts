// The sync watch (lib/edge/sync-watch-handler.ts) on the records the embedded server's change stream
// writes, against the store: a change that landed late is re-stamped strictly later with its index
// keys, once however often its batch comes; a later change is never overwritten; the watch's own
// re-stamp, a prompt change and one stamped ahead are left alone; a record it cannot finish is named.
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { syncAttributes } from '../../lib/core/sync/keys';
import { landingAllowanceMs } from '../../lib/core/sync/lateness';
import { makeSyncWatchHandler, watchBatch } from '../../lib/edge/sync-watch-handler';
import { syncWatchHandler } from '../../lib/root/handlers';
import type { Stores } from '../../lib/root/stores';
import { watchBoundsOf, type Wiring } from '../../lib/root/wiring';
import { lambdaContext } from '../../tools/local/proxy-event';
import { startLaggingTables, type LaggingTables } from '../support/lagging-dynamo';
import { testClock } from '../support/local-stack';

const clock = testClock();
let tables: LaggingTables;
let wiring: Wiring;
let stores: Stores;
let records: DynamoDBRecord[];

beforeEach(async () => {
  tables = await startLaggingTables({ stream: { now: clock.now } });
  ({ wiring, ...stores } = tables.stores({ now: clock.now }));
  records = [];
  tables.dynamo.stream?.subscribe(tables.names.orders, (r) => records.push(r.record));
});
afterEach(() => tables.close());

const LATE_MS = () => landingAllowanceMs(watchBoundsOf(wiring)) + 5_000;
const iso = (ms: number) => new Date(ms).toISOString();
const eventOf = (...of: DynamoDBRecord[]): DynamoDBStreamEvent => ({ Records: of });
const context = () => lambdaContext('sync-watch', { now: clock.now });
/** What the composition root gives the watch: the service's re-stamps, this wiring's bounds. */
const watching = () => ({ restamps: stores.restamps, bounds: () => watchBoundsOf(wiring) });

async function item(id: string): Promise<Record<string, unknown>> {
  const { Item } = await tables.client.send(
    new GetItemCommand({ TableName: tables.names.orders, Key: { id: { N: id } }, ConsistentRead: true }),
  );
  return Item ? unmarshall(Item) : {};
}

/** A writer whose clock is `behindMs` slow: its change lands that much after its stamp. */
const writerBehind = (behindMs: number) => tables.stores({ now: () => clock.now() - behindMs }).orders;

test('a change that landed late is re-stamped now, its index keys with it, and a repeat of the batch writes nothing', async () => {
  await writerBehind(LATE_MS()).create({ id: '7', status: 'pending' });
  const late = eventOf(...records);
  const { batch } = await watchBatch(late, watching());
  expect(batch).toMatchObject({ watched: 1, restamped: 1, stampedAhead: 0 });
  expect(batch.latenessMaxMs).toBeGreaterThan(landingAllowanceMs(watchBoundsOf(wiring)));
  expect(await item('7')).toMatchObject(syncAttributes('7', 'pending', iso(clock.now())));
  // The batch again, a second later: the order no longer has the stamp it was seen with.
  clock.advance(1_000);
  expect(await syncWatchHandler(wiring)(late, context())).toEqual({ batchItemFailures: [] });
  expect((await item('7')).updatedAt).toBe(iso(clock.now() - 1_000));
  // The re-stamp's own record is judged by its own stamp: prompt, left alone.
  const own = records.slice(1);
  expect(own).toHaveLength(1);
  const { batch: again } = await watchBatch(eventOf(...own), watching());
  expect(again).toMatchObject({ watched: 1, restamped: 0 });
  expect(records).toHaveLength(2);
});

test('a later change is never overwritten: the late one is left for the later one, which has its own record', async () => {
  await writerBehind(LATE_MS()).create({ id: '8', status: 'pending' });
  clock.advance(1);
  await stores.orders.cancel('8');
  const cancelled = await item('8');
  const [create] = records;
  if (!create) throw new Error('no record of the create');
  await syncWatchHandler(wiring)(eventOf(create), context());
  expect(await item('8')).toEqual(cancelled);
});

test('prompt changes and changes stamped ahead of the clock are counted, not re-stamped', async () => {
  await stores.orders.create({ id: '1', status: 'pending' });
  await writerBehind(-10 * 60_000).create({ id: '2', status: 'pending' });
  const before = [await item('1'), await item('2')];
  const { batch } = await watchBatch(eventOf(...records), watching());
  expect(batch).toMatchObject({ watched: 2, restamped: 0, stampedAhead: 1 });
  expect([await item('1'), await item('2')]).toEqual(before);
});

test('removals, unstamped orders and records without a creation time are skipped, not failed', async () => {
  await writerBehind(LATE_MS()).create({ id: '3', status: 'pending' });
  const [record] = records;
  if (!record?.dynamodb) throw new Error('no record');
  const { ApproximateCreationDateTime: _created, ...timeless } = record.dynamodb;
  const { updatedAt: _stamp, ...unstamped } = record.dynamodb.NewImage ?? {};
  const event = eventOf(
    { ...record, eventName: 'REMOVE', dynamodb: { ...record.dynamodb, NewImage: undefined } },
    { ...record, dynamodb: timeless },
    { ...record, dynamodb: { ...record.dynamodb, NewImage: unstamped } },
    { ...record, dynamodb: { ...record.dynamodb, NewImage: { id: { S: 'not an order' } } } },
  );
  const before = await item('3');
  expect(await syncWatchHandler(wiring)(event, context())).toEqual({ batchItemFailures: [] });
  expect(await item('3')).toEqual(before);
});

test('a re-stamp that fails names its record, so Lambda sends it again with the rest, and the watch stops there', async () => {
  await writerBehind(LATE_MS()).create({ id: '4', status: 'pending' });
  await writerBehind(LATE_MS()).create({ id: '5', status: 'pending' });
  const attempted: string[] = [];
  const handler = makeSyncWatchHandler({
    restamps: {
      restamp: async (seen) => {
        attempted.push(seen.id);
        throw Object.assign(new Error('throttled'), { name: 'ProvisionedThroughputExceededException' });
      },
    },
    bounds: () => watchBoundsOf(wiring),
  });
  expect(await handler(eventOf(...records), context())).toEqual({
    batchItemFailures: [{ itemIdentifier: records[0]?.dynamodb?.SequenceNumber }],
  });
  expect(attempted).toEqual(['4']);
});
