// The edge's error mapping answers only the codes a route declares, with the headers each answer
// always carries.

import { routeErrorCodes } from '../../lib/contract/operations';
import { MissingCallerError, toHttpError } from '../../lib/edge/http-errors';
import { OrderAlreadyShippedError, OrderNotFoundError } from '../../lib/core/order-errors';

const CANCEL = routeErrorCodes('cancelOrder');
const LIST = routeErrorCodes('listOrders');

test("a domain error becomes its route's declared code", () => {
  expect(toHttpError(new OrderNotFoundError('5'), CANCEL)).toMatchObject({ statusCode: 404, headers: {} });
  expect(JSON.parse(toHttpError(new OrderAlreadyShippedError('5'), CANCEL)?.message ?? '')).toEqual({
    code: 'ORDER_ALREADY_SHIPPED',
    message: 'The order has already shipped and cannot be cancelled.',
    status: 409,
  });
});

test('a code the route does not declare is not answered: the error falls through to the 500', () => {
  expect(toHttpError(new OrderNotFoundError('5'), LIST)).toBeUndefined();
  expect(toHttpError(new Error('a bug'), CANCEL)).toBeUndefined();
});

test('401 and 503 carry their headers on every route', () => {
  expect(toHttpError(new MissingCallerError('none'), LIST)).toMatchObject({
    statusCode: 401,
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
  const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
  expect(toHttpError(throttled, LIST)).toMatchObject({ statusCode: 503, headers: { 'Retry-After': '1' } });
});
