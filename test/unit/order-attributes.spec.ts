import { orderFromAttributes } from '../../lib/stores/orders';

// Listings read items as DynamoDB sends them (no document-client unmarshalling), so this is the
// one place an item becomes an Order: every digit kept, every field's type checked.

test('an item becomes an order with every int64 digit kept', () => {
  expect(
    orderFromAttributes({
      id: { N: '9223372036854775807' },
      petId: { N: '-9223372036854775808' },
      quantity: { N: '3' },
      shipDate: { S: '2026-11-20T10:00:00.000Z' },
      complete: { BOOL: false },
      status: { S: 'pending' },
    }),
  ).toEqual({
    id: '9223372036854775807',
    petId: '-9223372036854775808',
    quantity: 3,
    shipDate: '2026-11-20T10:00:00.000Z',
    complete: false,
    status: 'pending',
  });
});

test('absent optional fields stay absent', () => {
  const order = orderFromAttributes({ id: { N: '9007199254740993' }, status: { S: 'shipped' } });
  expect(order).toEqual({ id: '9007199254740993', status: 'shipped' });
  expect(Object.keys(order)).toEqual(['id', 'status']);
});

test('optional fields of another DynamoDB type are left out, not misread', () => {
  expect(
    orderFromAttributes({
      id: { N: '1' },
      status: { S: 'pending' },
      petId: { S: '12' },
      quantity: { S: '3' },
      shipDate: { N: '20261120' },
      complete: { S: 'true' },
    }),
  ).toEqual({ id: '1', status: 'pending' });
});

test.each([
  ['no id', { status: { S: 'pending' } }],
  ['an id that is not a number', { id: { S: '1' }, status: { S: 'pending' } }],
  ['no status', { id: { N: '1' } }],
  ['an unknown status', { id: { N: '1' }, status: { S: 'lost' } }],
  ['a status that is not a string', { id: { N: '1' }, status: { BOOL: true } }],
])('an item with %s is refused as malformed', (_name, item) => {
  expect(() => orderFromAttributes(item)).toThrow('Malformed order item in the orders table');
});
