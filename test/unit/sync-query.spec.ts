import { SYNC_PAGE, SYNC_PARAMETERS } from '../../lib/contract/sync';
import { InvalidQueryError } from '../../lib/core/sync/sync-errors';
import { normalisedDateTime, parseSyncQuery } from '../../lib/core/sync/query';

test('no parameters: the default limit and no filters', () => {
  expect(parseSyncQuery(null)).toEqual({ limit: SYNC_PAGE.defaultLimit, filters: {} });
});

test('every parameter, read and normalised', () => {
  expect(
    parseSyncQuery({
      limit: [String(SYNC_PAGE.maxLimit)],
      status: ['shipped'],
      updatedSince: ['2026-11-22T13:00:00+01:00'],
      cursor: ['c'],
    }),
  ).toEqual({
    limit: SYNC_PAGE.maxLimit,
    filters: { status: 'shipped', updatedSince: '2026-11-22T12:00:00.000Z' },
    cursor: 'c',
  });
});

test.each([
  ['2026-11-22T12:00:00Z', '2026-11-22T12:00:00.000Z'],
  ['2026-11-22t12:00:00.5z', '2026-11-22T12:00:00.500Z'],
  ['2026-11-22T12:00:00.123000Z', '2026-11-22T12:00:00.123Z'],
  // Finer than a millisecond rounds up: nothing before the instant asked for is taken in.
  ['2026-11-22T12:00:00.1231Z', '2026-11-22T12:00:00.124Z'],
  ['2026-11-22T00:30:00-01:00', '2026-11-22T01:30:00.000Z'],
  ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
  ['0050-01-01T00:00:00+01:00', '0049-12-31T23:00:00.000Z'],
])('%s is %s', (text, iso) => {
  expect(normalisedDateTime(text)).toBe(iso);
});

test.each([
  '2026-11-22',
  '2026-11-22 12:00:00Z',
  '2026-11-22T12:00:00',
  '2025-02-29T00:00:00Z',
  '2026-13-01T00:00:00Z',
  '2026-11-22T24:00:00Z',
  '2026-11-22T12:60:00Z',
  '2026-11-22T12:00:00+24:00',
  '0000-01-01T00:00:00+00:01',
  '1763812800',
])('%s is not an RFC 3339 date-time', (text) => {
  expect(normalisedDateTime(text)).toBeUndefined();
});

test.each([
  [{ limit: ['0'] }, SYNC_PARAMETERS.limit],
  [{ limit: [String(SYNC_PAGE.maxLimit + 1)] }, SYNC_PARAMETERS.limit],
  [{ limit: ['1e2'] }, SYNC_PARAMETERS.limit],
  [{ limit: ['-1'] }, SYNC_PARAMETERS.limit],
  [{ limit: ['1', '2'] }, SYNC_PARAMETERS.limit],
  [{ status: ['open'] }, SYNC_PARAMETERS.status],
  [{ updatedSince: ['now'] }, SYNC_PARAMETERS.updatedSince],
  [{ cursor: [''] }, SYNC_PARAMETERS.cursor],
  [{ offset: ['10'] }, 'offset'],
])('%j is refused, naming %s', (parameters, name) => {
  let thrown: unknown;
  try {
    parseSyncQuery(parameters);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidQueryError);
  expect((thrown as InvalidQueryError).parameter).toBe(name);
  expect((thrown as InvalidQueryError).message.startsWith(`${name}:`)).toBe(true);
});
