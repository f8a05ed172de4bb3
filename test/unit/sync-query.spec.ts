import { SYNC_PAGE, SYNC_PARAMETERS, SYNC_TEXT_LIMITS } from '../../lib/contract/sync';
import { InvalidCursorError, InvalidQueryError } from '../../lib/core/sync/sync-errors';
import { normalisedDateTime } from '../../lib/contract/date-time';
import { parseSyncQuery } from '../../lib/core/sync/query';

/** The server's time the queries are parsed at. */
const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

test('no parameters: the default limit and no filters', () => {
  expect(parseSyncQuery(null, NOW)).toEqual({ limit: SYNC_PAGE.defaultLimit, filters: {} });
});

test('every parameter, read and normalised', () => {
  expect(
    parseSyncQuery(
      {
        limit: [String(SYNC_PAGE.maxLimit)],
        status: ['shipped'],
        updatedSince: ['2026-11-22T13:00:00+01:00'],
        cursor: ['c'],
      },
      NOW,
    ),
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
  // Leading zeros and signs are refused, as in an order id (`orderId=007` is INVALID_ORDER_ID).
  [{ limit: ['05'] }, SYNC_PARAMETERS.limit],
  [{ limit: ['0100'] }, SYNC_PARAMETERS.limit],
  [{ limit: ['+5'] }, SYNC_PARAMETERS.limit],
  [{ limit: ['00'] }, SYNC_PARAMETERS.limit],
  // A date-time longer than the declared bound is refused before it is read.
  [
    { updatedSince: [`2026-11-22T12:00:00.${'0'.repeat(SYNC_TEXT_LIMITS.updatedSince)}Z`] },
    SYNC_PARAMETERS.updatedSince,
  ],
  [{ status: ['open'] }, SYNC_PARAMETERS.status],
  [{ updatedSince: ['now'] }, SYNC_PARAMETERS.updatedSince],
  [{ cursor: [''] }, SYNC_PARAMETERS.cursor],
  [{ offset: ['10'] }, 'offset'],
])('%j is refused, naming %s', (parameters, name) => {
  expect(refusal(parameters).parameter).toBe(name);
});

test(`an updatedSince of ${SYNC_TEXT_LIMITS.updatedSince} characters is read; one more is refused, saying how long it is`, () => {
  const longest = '2026-11-22T13:00:00.000000000+01:00';
  expect(longest).toHaveLength(SYNC_TEXT_LIMITS.updatedSince);
  expect(parseSyncQuery({ updatedSince: [longest] }, NOW).filters.updatedSince).toBe('2026-11-22T12:00:00.000Z');
  const error = refusal({ updatedSince: [`${longest.slice(0, 29)}0${longest.slice(29)}`] });
  expect(error.message).toBe(
    `updatedSince: is ${SYNC_TEXT_LIMITS.updatedSince + 1} characters long, more than ${SYNC_TEXT_LIMITS.updatedSince}`,
  );
});

test('the refusal of a limit says how to write it', () => {
  expect(refusal({ limit: ['05'] }).message).toBe(
    `limit: must be an integer from ${SYNC_PAGE.minLimit} to ${SYNC_PAGE.maxLimit}, in plain digits without leading zeros`,
  );
});

test(`a cursor longer than ${SYNC_TEXT_LIMITS.cursor} characters is INVALID_CURSOR before its seal is read`, () => {
  const most = 'c'.repeat(SYNC_TEXT_LIMITS.cursor);
  expect(parseSyncQuery({ cursor: [most] }, NOW).cursor).toBe(most);
  expect(() => parseSyncQuery({ cursor: [`${most}c`] }, NOW)).toThrow(InvalidCursorError);
  expect(() => parseSyncQuery({ cursor: [`${most}c`] }, NOW)).toThrow(
    `cursor: ${SYNC_TEXT_LIMITS.cursor + 1} characters, longer than any this API issues (${SYNC_TEXT_LIMITS.cursor})`,
  );
});

function refusal(parameters: Record<string, readonly string[]>, now = NOW): InvalidQueryError {
  let thrown: unknown;
  try {
    parseSyncQuery(parameters, now);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(InvalidQueryError);
  const error = thrown as InvalidQueryError;
  expect(error.message.startsWith(`${error.parameter}:`)).toBe(true);
  return error;
}

// As the deployed function gets them: the event's JSON parsed, each name an own key (`__proto__` too).
test.each(['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'])(
  'a parameter named %s is unknown, and refused by name',
  (name) => {
    const parameters = JSON.parse(`{${JSON.stringify(name)}:["1"],"limit":["5"]}`) as Record<string, string[]>;
    const error = refusal(parameters);
    expect(error.parameter).toBe(name);
    expect(error.message).toContain('unknown parameter');
  },
);

describe("an updatedSince later than the server's time", () => {
  const iso = (ms: number) => new Date(ms).toISOString();

  test("is refused, naming the server's time", () => {
    const error = refusal({ updatedSince: [iso(NOW + 120_000)] });
    expect(error.parameter).toBe(SYNC_PARAMETERS.updatedSince);
    expect(error.message).toContain(`server's time (${iso(NOW)})`);
    // One millisecond is already the future: no allowance lets an instant still to come through.
    expect(refusal({ updatedSince: [iso(NOW + 1)] }).parameter).toBe(SYNC_PARAMETERS.updatedSince);
    // In another offset, the same instant.
    expect(refusal({ updatedSince: ['2026-11-22T13:00:00.001+01:00'] }).parameter).toBe(SYNC_PARAMETERS.updatedSince);
  });

  test("the server's time itself, or any earlier, is taken", () => {
    for (const since of [iso(NOW), iso(NOW - 1), '1970-01-01T00:00:00Z'])
      expect(parseSyncQuery({ updatedSince: [since] }, NOW).filters.updatedSince).toBe(iso(Date.parse(since)));
  });

  test("with a cursor it is not checked: the page's filters are the cursor's, checked when the walk began", () => {
    const query = parseSyncQuery({ updatedSince: [iso(NOW + 1)], cursor: ['c'] }, NOW);
    expect(query.filters.updatedSince).toBe(iso(NOW + 1));
  });
});
