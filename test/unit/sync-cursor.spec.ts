import { createHmac, randomBytes } from 'node:crypto';
import { SYNC_SHARDS } from '../../lib/contract/tables';
import { isUnfiltered, SYNC_FILTERS, SYNC_TEXT_LIMITS, type SyncFilters } from '../../lib/contract/sync';
import { INT64_MIN } from '../../lib/contract/order';
import { updateKey } from '../../lib/core/sync/keys';
import { parseSyncQuery } from '../../lib/core/sync/query';
import { pageUrl } from '../../client/pages';
import { CURSOR_VERSION, cursorFilters, openCursor, sealCursor, type CursorContent } from '../../lib/core/sync/cursor';
import { InvalidCursorError } from '../../lib/core/sync/sync-errors';

const key = randomBytes(32);
const indexed: CursorContent = {
  filters: { status: 'pending', updatedSince: '2026-11-22T12:00:00.000Z' },
  position: {
    kind: 'index',
    after: Array.from({ length: SYNC_SHARDS }, (_, i) => (i % 2 ? `2026-11-22T12:00:0${i}.000Z#1` : null)),
    done: [0],
  },
  started: Date.UTC(2026, 10, 22, 12, 0, 0),
};
const scanned: CursorContent = {
  filters: {},
  position: { kind: 'scan', after: '-9223372036854775808' },
  started: Date.UTC(2026, 10, 22, 12, 0, 0),
};

test.each([
  ['index', indexed],
  ['scan', scanned],
])('a sealed %s cursor opens to what was sealed', (_kind, content) => {
  const cursor = sealCursor(content, key);
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  expect(openCursor(cursor, key)).toEqual(content);
});

test(`the longest cursor the API can issue fits the declared ${SYNC_TEXT_LIMITS.cursor} characters`, () => {
  // Both filters, every shard's position at the longest key and every shard done: more than any page holds.
  const latest = '9999-12-31T23:59:59.999Z';
  const longest = sealCursor(
    {
      filters: { status: 'cancelled', updatedSince: latest },
      position: {
        kind: 'index',
        after: Array.from({ length: SYNC_SHARDS }, () => updateKey(latest, INT64_MIN.toString())),
        done: Array.from({ length: SYNC_SHARDS }, (_, shard) => shard),
      },
      started: Date.parse(latest),
    },
    key,
  );
  expect(longest.length).toBeLessThanOrEqual(SYNC_TEXT_LIMITS.cursor);
  expect(openCursor(longest, key).filters.status).toBe('cancelled');
});

function reseal(content: unknown): string {
  const payload = Buffer.from(JSON.stringify(content)).toString('base64url');
  const tag = sealCursor(scanned, key).split('.')[1] ?? '';
  return `${payload}.${tag}`;
}

test.each([
  ['another key', () => sealCursor(indexed, randomBytes(32))],
  ['an altered payload, tag kept', () => reseal({ v: CURSOR_VERSION, ...indexed, filters: { status: 'shipped' } })],
  ['a truncated tag', () => sealCursor(indexed, key).slice(0, -2)],
  ['no tag', () => sealCursor(indexed, key).split('.')[0] ?? ''],
  ['an extra part', () => `${sealCursor(indexed, key)}.x`],
  ['not base64 at all', () => '!!!.???'],
])('refused: %s', (_name, cursor) => {
  expect(() => openCursor(cursor(), key)).toThrow(InvalidCursorError);
});

test('a well-sealed cursor of the wrong shape is still refused (a change of format, say)', () => {
  const sealedWith = (content: unknown) => {
    const payload = Buffer.from(JSON.stringify(content)).toString('base64url');
    // Sealed as this API seals, so only the shape check can refuse it.
    return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
  };
  expect(openCursor(sealedWith({ v: CURSOR_VERSION, ...scanned }), key)).toEqual(scanned);
  const { started: _started, ...unstarted } = scanned;
  for (const content of [
    { v: CURSOR_VERSION + 1, ...scanned },
    // An earlier version's cursor: no walk start, so no watermark could follow from it.
    { v: CURSOR_VERSION - 1, ...unstarted },
    { v: CURSOR_VERSION, ...unstarted },
    { v: CURSOR_VERSION, ...scanned, started: 'yesterday' },
    { v: CURSOR_VERSION, filters: { status: 'lost' }, position: scanned.position, started: scanned.started },
    { v: CURSOR_VERSION, filters: {}, position: { kind: 'index', after: [null], done: [] }, started: scanned.started },
    {
      v: CURSOR_VERSION,
      started: scanned.started,
      filters: {},
      position: {
        kind: 'index',
        after: indexed.position.kind === 'index' ? indexed.position.after : [],
        done: [SYNC_SHARDS],
      },
    },
  ])
    expect(() => openCursor(sealedWith(content), key)).toThrow(InvalidCursorError);
});

test("a cursor's filters hold; the request may repeat them or leave them out, not change or add one", () => {
  expect(cursorFilters(indexed, {})).toEqual(indexed.filters);
  expect(cursorFilters(indexed, indexed.filters)).toEqual(indexed.filters);
  expect(() => cursorFilters(indexed, { status: 'shipped' })).toThrow(InvalidCursorError);
  expect(() => cursorFilters(scanned, { status: 'pending' })).toThrow(InvalidCursorError);
  expect(() => cursorFilters(scanned, { updatedSince: '2026-11-22T12:00:00.000Z' })).toThrow(InvalidCursorError);
});

/** A value of each declared filter: a filter added to SYNC_FILTERS fails the type check here until it has one. */
const FILTER_SAMPLES: Required<SyncFilters> = { status: 'shipped', updatedSince: '2026-11-22T12:00:00.000Z' };

test.each(SYNC_FILTERS)(
  'the declared filter %s is read, carried and held by the cursor, and sent by the client',
  (name) => {
    const filters: SyncFilters = { [name]: FILTER_SAMPLES[name] };
    expect(parseSyncQuery({ [name]: [FILTER_SAMPLES[name]] }, Date.parse(FILTER_SAMPLES.updatedSince)).filters).toEqual(
      filters,
    );
    expect(isUnfiltered(filters)).toBe(false);
    const opened = openCursor(sealCursor({ ...indexed, filters }, key), key);
    expect(opened.filters).toEqual(filters);
    expect(cursorFilters(opened, {})).toEqual(filters);
    expect(() => cursorFilters(opened, { [name]: `${FILTER_SAMPLES[name]}-other` })).toThrow(InvalidCursorError);
    const first = new URL(pageUrl('https://api.example/v2', filters));
    expect(first.searchParams.get(name)).toBe(FILTER_SAMPLES[name]);
    // Later pages: the cursor holds the filters, the URL does not repeat them.
    expect(new URL(pageUrl('https://api.example/v2', filters, 'c')).searchParams.get(name)).toBeNull();
  },
);
