import { INT64_MAX, INT64_MIN } from '../../lib/contract/order';
import { SYNC_SHARDS } from '../../lib/contract/tables';
import { shardOf, updateKey } from '../../lib/core/sync/keys';

const AT = '2026-11-22T12:00:00.000Z';

test('update keys order by updatedAt, then by id across the whole int64 range', () => {
  const ids = [INT64_MIN, -2n, -1n, 0n, 1n, 9n, 10n, INT64_MAX].map(String);
  const keys = ids.map((id) => updateKey(AT, id));
  expect([...keys].sort()).toEqual(keys);
  expect(updateKey('2026-11-22T12:00:00.001Z', String(INT64_MIN)) > updateKey(AT, String(INT64_MAX))).toBe(true);
});

test('an update key is never below the updatedAt it starts with, so `>= since` takes that millisecond', () => {
  expect(updateKey(AT, String(INT64_MIN)) >= AT).toBe(true);
  expect(updateKey(AT, String(INT64_MAX)) < '2026-11-22T12:00:00.001Z').toBe(true);
});

test('sequential ids spread evenly over the shards, negative ids included', () => {
  const counts = new Array<number>(SYNC_SHARDS).fill(0);
  for (let id = -5 * SYNC_SHARDS; id < 5 * SYNC_SHARDS; id++) {
    const shard = shardOf(String(id));
    counts[shard] = (counts[shard] ?? 0) + 1;
  }
  expect(counts).toEqual(new Array<number>(SYNC_SHARDS).fill(10));
});
