import { createHmac, randomBytes } from 'node:crypto';
import { SYNC_SHARDS } from '../../lib/contract/tables';
import { isUnfiltered, SYNC_FILTERS, type SyncFilters } from '../../lib/contract/sync';
import { parseSyncQuery } from '../../lib/core/sync/query';
import { pageUrl } from '../../client/pages';
import { CURSOR_LIFETIME_MS } from '../../lib/contract/sync';
import {
  CURSOR_VERSION,
  CURSOR_VERSION_BEFORE_DEPARTURES,
  cursorFilters,
  cursorVersionFor,
  openCursor,
  openCursorWith,
  sealCursor,
  type CursorContent,
  type CursorKeys,
  type CursorKeySource,
} from '../../lib/core/sync/cursor';
import { InvalidCursorError, UnknownCursorKeyError } from '../../lib/core/sync/sync-errors';

const key = randomBytes(32);
const keys: CursorKeys = { current: key };
const indexed: CursorContent = {
  filters: { status: 'pending', updatedSince: '2026-11-22T12:00:00.000Z' },
  position: {
    kind: 'index',
    after: Array.from({ length: SYNC_SHARDS }, (_, i) => (i % 2 ? `2026-11-22T12:00:0${i}.000Z#1` : null)),
    done: [0],
  },
  started: Date.UTC(2026, 10, 22, 12, 0, 0),
};
/** A moment a cursor of the walks above is opened at: an hour into them. */
const now = Date.UTC(2026, 10, 22, 13, 0, 0);
const scanned: CursorContent = {
  filters: {},
  position: { kind: 'scan', after: '-9223372036854775808' },
  started: Date.UTC(2026, 10, 22, 12, 0, 0),
};

test.each([
  ['index', indexed],
  ['scan', scanned],
])('a sealed %s cursor opens to what was sealed', (_kind, content) => {
  const cursor = sealCursor(content, keys);
  expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  expect(openCursor(cursor, keys, now)).toEqual(content);
});

function reseal(content: unknown): string {
  const payload = Buffer.from(JSON.stringify(content)).toString('base64url');
  const tag = sealCursor(scanned, keys).split('.')[1] ?? '';
  return `${payload}.${tag}`;
}

test.each([
  ['another key', () => sealCursor(indexed, { current: randomBytes(32) })],
  ['an altered payload, tag kept', () => reseal({ v: CURSOR_VERSION, ...indexed, filters: { status: 'shipped' } })],
  ['a truncated tag', () => sealCursor(indexed, keys).slice(0, -2)],
  ['no tag', () => sealCursor(indexed, keys).split('.')[0] ?? ''],
  ['an extra part', () => `${sealCursor(indexed, keys)}.x`],
  ['not base64 at all', () => '!!!.???'],
])('refused: %s', (_name, cursor) => {
  expect(() => openCursor(cursor(), keys, now)).toThrow(InvalidCursorError);
});

test('a well-sealed cursor of the wrong shape is still refused (a change of format, say)', () => {
  const sealedWith = (content: unknown) => {
    const payload = Buffer.from(JSON.stringify(content)).toString('base64url');
    // Sealed as this API seals, so only the shape check can refuse it.
    return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
  };
  const v = cursorVersionFor(scanned.filters);
  expect(openCursor(sealedWith({ v, ...scanned }), keys, now)).toEqual(scanned);
  const { started: _started, ...unstarted } = scanned;
  for (const content of [
    { v: CURSOR_VERSION + 1, ...scanned },
    // A walk without departures is sealed as the version before them, never as a later one.
    { v: CURSOR_VERSION, ...scanned },
    // An earlier version's cursor: no walk start, so no watermark could follow from it.
    { v: v - 1, ...unstarted },
    { v, ...unstarted },
    { v, ...scanned, started: 'yesterday' },
    { v, filters: { status: 'lost' }, position: scanned.position, started: scanned.started },
    { v, filters: {}, position: { kind: 'index', after: [null], done: [] }, started: scanned.started },
    {
      v,
      started: scanned.started,
      filters: {},
      position: {
        kind: 'index',
        after: indexed.position.kind === 'index' ? indexed.position.after : [],
        done: [SYNC_SHARDS],
      },
    },
  ])
    expect(() => openCursor(sealedWith(content), keys, now)).toThrow(InvalidCursorError);
});

test('only a walk that lists departures is sealed as the newest version: the version before opens the others', () => {
  const version = (cursor: string) =>
    (JSON.parse(Buffer.from(cursor.split('.')[0] ?? '', 'base64url').toString('utf8')) as { v: unknown }).v;
  expect(version(sealCursor(indexed, keys))).toBe(CURSOR_VERSION);
  expect(version(sealCursor(scanned, keys))).toBe(CURSOR_VERSION_BEFORE_DEPARTURES);
  const statusOnly: CursorContent = { ...indexed, filters: { status: 'pending' } };
  expect(version(sealCursor(statusOnly, keys))).toBe(CURSOR_VERSION_BEFORE_DEPARTURES);
});

test("a status-and-since cursor sealed before departures goes on from the by-update index's start, its walk start kept", () => {
  const payload = Buffer.from(JSON.stringify({ v: CURSOR_VERSION_BEFORE_DEPARTURES, ...indexed })).toString(
    'base64url',
  );
  const cursor = `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
  expect(openCursor(cursor, keys, now)).toEqual({
    ...indexed,
    position: { kind: 'index', after: Array<null>(SYNC_SHARDS).fill(null), done: [] },
  });
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
    const opened = openCursor(sealCursor({ ...indexed, filters }, keys), keys, now);
    expect(opened.filters).toEqual(filters);
    expect(cursorFilters(opened, {})).toEqual(filters);
    expect(() => cursorFilters(opened, { [name]: `${FILTER_SAMPLES[name]}-other` })).toThrow(InvalidCursorError);
    const first = new URL(pageUrl('https://api.example/v2', filters));
    expect(first.searchParams.get(name)).toBe(FILTER_SAMPLES[name]);
    // Later pages: the cursor holds the filters, the URL does not repeat them.
    expect(new URL(pageUrl('https://api.example/v2', filters, 'c')).searchParams.get(name)).toBeNull();
  },
);

describe('a rotation of the key', () => {
  const [before, after, later] = [randomBytes(32), randomBytes(32), randomBytes(32)];
  const issued = sealCursor(indexed, { current: before });

  test('a cursor sealed before it opens under the new key as the previous one; new cursors are sealed with the new key', () => {
    const rotated: CursorKeys = { current: after, previous: before };
    expect(openCursor(issued, rotated, now)).toEqual(indexed);
    const next = sealCursor(indexed, rotated);
    expect(openCursor(next, { current: after }, now)).toEqual(indexed);
    expect(() => openCursor(next, { current: before }, now)).toThrow(UnknownCursorKeyError);
  });

  test('two rotations later the first key is gone, and so are its cursors', () => {
    expect(() => openCursor(issued, { current: later, previous: after }, now)).toThrow(UnknownCursorKeyError);
  });

  test('a cursor of another key is refused as not issued here, whatever the keys held', () => {
    const foreign = sealCursor(indexed, { current: randomBytes(32) });
    for (const held of [{ current: before }, { current: after, previous: before }]) {
      expect(() => openCursor(foreign, held, now)).toThrow(UnknownCursorKeyError);
      expect(() => openCursor(foreign, held, now)).toThrow(InvalidCursorError);
    }
  });
});

test("a cursor opens for CURSOR_LIFETIME_MS after its walk's first page, and not after", () => {
  const cursor = sealCursor(indexed, keys);
  expect(openCursor(cursor, keys, indexed.started + CURSOR_LIFETIME_MS)).toEqual(indexed);
  expect(() => openCursor(cursor, keys, indexed.started + CURSOR_LIFETIME_MS + 1)).toThrow(/expired/);
  expect(() => openCursor(cursor, keys, indexed.started + CURSOR_LIFETIME_MS + 1)).not.toThrow(UnknownCursorKeyError);
});

describe('opening with a key source', () => {
  /** A source holding `held` that, asked to renew, reads `renewed` (or is not allowed to, undefined). */
  function source(held: CursorKeys, renewed: CursorKeys | undefined) {
    const calls = { renewed: 0 };
    const keySource: CursorKeySource = {
      held: () => Promise.resolve(held),
      renewed: () => {
        calls.renewed++;
        return Promise.resolve(renewed);
      },
    };
    return { keySource, calls };
  }
  const [old, rotated] = [randomBytes(32), randomBytes(32)];

  test('a cursor sealed with a key held opens without reading the keys again', async () => {
    const { keySource, calls } = source({ current: old }, { current: rotated, previous: old });
    await expect(openCursorWith(keySource, sealCursor(indexed, { current: old }), now)).resolves.toEqual(indexed);
    expect(calls.renewed).toBe(0);
  });

  test('a cursor sealed with a newer key (another container saw the rotation first) opens once the keys are read again', async () => {
    const { keySource, calls } = source({ current: old }, { current: rotated, previous: old });
    await expect(openCursorWith(keySource, sealCursor(indexed, { current: rotated }), now)).resolves.toEqual(indexed);
    expect(calls.renewed).toBe(1);
  });

  test('refused when the keys read again do not open it either, or may not be read again yet', async () => {
    const forged = sealCursor(indexed, { current: randomBytes(32) });
    await expect(openCursorWith(source({ current: old }, { current: rotated }).keySource, forged, now)).rejects.toThrow(
      InvalidCursorError,
    );
    await expect(openCursorWith(source({ current: old }, undefined).keySource, forged, now)).rejects.toThrow(
      InvalidCursorError,
    );
  });

  test('a cursor refused for anything but its key is refused without reading the keys again', async () => {
    const { keySource, calls } = source({ current: old }, { current: rotated });
    const expired = sealCursor({ ...indexed, started: now - CURSOR_LIFETIME_MS - 1 }, { current: old });
    await expect(openCursorWith(keySource, expired, now)).rejects.toThrow(/expired/);
    await expect(openCursorWith(keySource, 'not.a.cursor', now)).rejects.toThrow(InvalidCursorError);
    expect(calls.renewed).toBe(0);
  });
});
