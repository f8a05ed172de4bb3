// The import rules as plain functions (lib/core): what a valid order and pet is, and how an int64
// written another way is explained. test/integration/admin-orders.spec.ts runs them through a file.
import { parse } from 'lossless-json';
import { ORDER_FIELDS, ORDER_STATUSES, QUANTITY_MAX } from '../../lib/contract/order';
import { int64Problem } from '../../tools/admin/int64-text';
import { checkOrder, shipDate } from '../../tools/admin/order-record';
import { checkPet } from '../../tools/admin/pet-record';

function problemsOf(check: typeof checkOrder | typeof checkPet, json: string) {
  const problems: string[] = [];
  return { record: check(parse(json), 'x', problems), problems };
}

test('a valid order comes back with exact ids and its shipDate in UTC; nothing is pushed', () => {
  expect(
    problemsOf(
      checkOrder,
      `{"id": 9223372036854775807, "petId": -7, "quantity": ${QUANTITY_MAX}, "shipDate": "2026-11-20t11:00:00+01:00", "complete": true, "status": "shipped"}`,
    ),
  ).toEqual({
    record: {
      id: '9223372036854775807',
      petId: '-7',
      quantity: QUANTITY_MAX,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: true,
      status: 'shipped',
    },
    problems: [],
  });
});

test('every problem of an element is pushed, each with where it is', () => {
  expect(problemsOf(checkOrder, '{"id": 1.0, "status": "lost", "extra": 1}')).toEqual({
    record: undefined,
    problems: [
      'x.id: 1.0 has a decimal point: write it as 1',
      `x.status: must be one of ${ORDER_STATUSES.join(', ')}`,
      `x.extra: unknown field (allowed: ${ORDER_FIELDS.join(', ')})`,
    ],
  });
  expect(problemsOf(checkPet, '{"id": 1, "tags": [{"id": "2"}]}').problems).toEqual([
    'x.name: is required',
    'x.photoUrls: is required',
    'x.tags[0].id: must be an integer in the int64 range',
  ]);
});

test.each([
  ['0050-01-01T00:00:00Z', { utc: '0050-01-01T00:00:00.000Z' }],
  ['2026-02-30T00:00:00Z', { problem: expect.stringContaining('must be an ISO 8601 date-time') }],
  ['9999-12-31T23:59:59-23:59', { problem: expect.stringContaining('is +010000-01-01T23:58:59.000Z in UTC, outside') }],
  [7, { problem: expect.stringContaining('must be an ISO 8601 date-time') }],
])('shipDate %j', (value, expected) => {
  expect(shipDate(value)).toEqual(expected);
});

test.each([
  ['12', undefined],
  ['+12', '+12 has a plus sign or leading zeros: write it as 12'],
  ['1e400', '1e400 is not a whole number'],
  ['abc', '"abc" is not a decimal integer'],
])('int64Problem(%j)', (text, problem) => {
  expect(int64Problem(text)).toBe(problem);
});
