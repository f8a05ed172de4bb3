import { orderJson, type Order } from '../../lib/contract/order';
import { ordersJsonChunks, ordersJsonPage } from '../../lib/core/orders/orders-json';

async function text(pages: Order[][]): Promise<string> {
  async function* source() {
    yield* pages.map(ordersJsonPage);
  }
  let out = '';
  for await (const chunk of ordersJsonChunks(source())) out += chunk;
  return out;
}

describe('order JSON', () => {
  test('ids are written as raw digits, absent fields are left out', () => {
    const json = orderJson({ id: '9223372036854775807', petId: '9007199254740993', status: 'pending' });
    expect(json).toBe('{"id":9223372036854775807,"petId":9007199254740993,"status":"pending"}');
  });

  test('every field, strings escaped', () => {
    const order: Order = {
      id: '1',
      petId: '2',
      quantity: 3,
      shipDate: '2026-11-20T10:00:00.000Z',
      complete: true,
      status: 'shipped',
    };
    expect(JSON.parse(orderJson(order))).toEqual({ ...order, id: 1, petId: 2 });
    expect(JSON.parse(orderJson({ id: '1', shipDate: 'a"\\b', status: 'pending' })).shipDate).toBe('a"\\b');
  });

  test('the array is valid JSON across empty and full pages', async () => {
    expect(await text([])).toBe('[]');
    expect(await text([[], []])).toBe('[]');
    const pages: Order[][] = [
      [{ id: '1', status: 'pending' }],
      [],
      [
        { id: '2', status: 'shipped' },
        { id: '3', status: 'cancelled' },
      ],
    ];
    expect(JSON.parse(await text(pages)).map((o: { id: number }) => o.id)).toEqual([1, 2, 3]);
  });
});
