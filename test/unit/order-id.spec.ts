import { parseOrderId } from '../../lib/core/orders/order-id';
import { InvalidOrderIdError } from '../../lib/core/orders/order-errors';

describe('parseOrderId', () => {
  test.each([
    ['0', '0'],
    ['42', '42'],
    ['-1', '-1'],
    ['9007199254740993', '9007199254740993'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
  ])('accepts %s', (raw, id) => {
    expect(parseOrderId(raw)).toBe(id);
  });

  test.each([
    'abc',
    '1.5',
    '1e3',
    '9223372036854775808',
    '-9223372036854775809',
    '99999999999999999999',
    '',
    ' 1',
    '1 ',
    '+1',
    '007',
    '-0',
    '0x10',
    '１２',
    '1_000',
  ])('refuses %j', (raw) => {
    expect(() => parseOrderId(raw)).toThrow(InvalidOrderIdError);
  });

  test('refuses a missing parameter', () => {
    expect(() => parseOrderId(undefined)).toThrow(InvalidOrderIdError);
  });
});
