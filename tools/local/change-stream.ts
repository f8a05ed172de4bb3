// DynamoDB Streams, emulated from the embedded server's writes (docs/local-development.md). On AWS
// "each stream record appears exactly once in the stream" and "for each item that is modified ...
// the stream records appear in the same sequence as the actual modifications to the item", in
// shards, with no order promised between items (docs.aws.amazon.com/amazondynamodb/latest/
// developerguide/Streams.html). Each record carries both images (NEW_AND_OLD_IMAGES), a sequence
// number, and DynamoDB's creation time "rounded down to the closest second" (StreamRecord), here on
// the stack's clock, virtual in tests. A write that changes nothing writes no record (AWS documents
// records for modifications; an identical PutItem triggers nothing, as tecracer.com's "Why I had to
// update my mental model of DynamoDB streams", 2021, observed).
//
// dynalite's writes (PutItem, UpdateItem, DeleteItem, and BatchWriteItem through them) all call
// `db.updateIndexes(store, table, existingItem, item, done)` with the old and new item, as
// tools/local/index-lag.ts also uses: wrapped once per process, recording for a server whose
// options carry a stream, once the write is applied.
import { createHash, randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DynamoDBRecord } from 'aws-lambda';
import db, { type Item, type TableDescription } from 'dynalite/db';

export interface ChangeStreamOptions {
  /** The clock records are created on (epoch ms); the machine's when absent. */
  now?: () => number;
  /** Shards the records spread over by item key; one item's records always go to one shard, in order. */
  shards?: number;
}

/** A record as it reached its shard: when, exactly (the record itself keeps only the second). */
export interface ShardRecord {
  shard: number;
  arrivedAt: number;
  record: DynamoDBRecord;
}

type Subscriber = (record: ShardRecord) => void;

/** The sequence numbers DynamoDB gives are 21 to 40 digits (StreamRecord.SequenceNumber). */
const SEQUENCE_DIGITS = 21;
const DEFAULT_SHARDS = 4;

export class ChangeStream {
  private readonly now: () => number;
  readonly shards: number;
  private sequence = 0;
  /** Streamed tables by name: each its stream ARN and its readers. */
  private readonly tables = new Map<string, { arn: string; subscribers: Subscriber[] }>();

  constructor(options: ChangeStreamOptions = {}) {
    this.now = options.now ?? Date.now;
    this.shards = options.shards ?? DEFAULT_SHARDS;
  }

  /**
   * Hands each record of `tableName`'s stream to `read` as it is written, from now on (the local
   * stack subscribes its event source mappings before anything is written).
   */
  subscribe(tableName: string, read: Subscriber): void {
    let table = this.tables.get(tableName);
    if (table === undefined) {
      const label = new Date(this.now()).toISOString().slice(0, 23);
      table = { arn: `arn:aws:dynamodb:local:000000000000:table/${tableName}/stream/${label}`, subscribers: [] };
      this.tables.set(tableName, table);
    }
    table.subscribers.push(read);
  }

  /** One applied write of `table`: a record to each of its readers, unless the write changed nothing. */
  record(table: TableDescription, before?: Item, after?: Item): void {
    const streamed = this.tables.get(table.TableName);
    if (streamed === undefined || (before === undefined && after === undefined)) return;
    const [oldImage, newImage] = [before, after].map((item) => (item ? (structuredClone(item) as Images) : undefined));
    if (isDeepStrictEqual(plain(oldImage), plain(newImage))) return;
    const keyNames = (table.KeySchema ?? []).map((key) => key.AttributeName);
    const image = (newImage ?? oldImage) as Images;
    const Keys = Object.fromEntries(keyNames.map((name) => [name, image[name]])) as Images;
    const arrivedAt = this.now();
    const record: DynamoDBRecord = {
      eventID: randomUUID().replaceAll('-', ''),
      eventName: oldImage === undefined ? 'INSERT' : newImage === undefined ? 'REMOVE' : 'MODIFY',
      eventVersion: '1.1',
      eventSource: 'aws:dynamodb',
      awsRegion: 'local',
      eventSourceARN: streamed.arn,
      dynamodb: {
        ApproximateCreationDateTime: Math.floor(arrivedAt / 1000),
        Keys,
        ...(newImage ? { NewImage: newImage } : {}),
        ...(oldImage ? { OldImage: oldImage } : {}),
        SequenceNumber: String(++this.sequence).padStart(SEQUENCE_DIGITS, '0'),
        SizeBytes: Buffer.byteLength(JSON.stringify([Keys, newImage, oldImage])),
        StreamViewType: 'NEW_AND_OLD_IMAGES',
      },
    };
    const shard = createHash('sha1').update(JSON.stringify(Keys)).digest().readUInt32BE(0) % this.shards;
    for (const read of streamed.subscribers) read({ shard, arrivedAt, record: structuredClone(record) });
  }
}

type Images = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

/** dynalite's items are null-prototype objects; compared by their attributes only. */
const plain = (image: Images | undefined): unknown =>
  image === undefined ? undefined : JSON.parse(JSON.stringify(image));

const STREAMS = Symbol.for('store-orders.change-streams');

/** Streams the writes of the server created with these dynalite options into `stream`. */
export function streamChanges(dynaliteOptions: object, stream: ChangeStream): void {
  streamsOfServers().set(dynaliteOptions, stream);
}

/** The stream of each server, by its options object, kept on dynalite's module as index-lag.ts keeps its lags. */
function streamsOfServers(): WeakMap<object, ChangeStream> {
  const shared = db as typeof db & { [STREAMS]?: WeakMap<object, ChangeStream> };
  if (shared[STREAMS] !== undefined) return shared[STREAMS];
  const streams = new WeakMap<object, ChangeStream>();
  shared[STREAMS] = streams;
  const { updateIndexes } = db;
  db.updateIndexes = (store, table, existingItem, item, done) => {
    const stream = streams.get(store.options);
    if (stream === undefined) return updateIndexes(store, table, existingItem, item, done);
    updateIndexes(store, table, existingItem, item, (error) => {
      if (!error) stream.record(table, existingItem, item ?? undefined);
      done(error);
    });
  };
  return streams;
}
