// The edge's error mapping answers only the codes a route declares, with the headers each answer
// always carries.

import { ERRORS, errorBody, SERVICE_UNAVAILABLE_ANSWER, UNAUTHORIZED_ANSWER } from '../../lib/contract/errors';
import { routeErrorCodes } from '../../lib/contract/operations';
import { MissingCallerError, toHttpError } from '../../lib/edge/http-errors';
import { KeyRevokedError, MinutePassedError, NoTimeToServeError } from '../../lib/core/limiter/limit-errors';
import { limiterKey, windowAt } from '../../lib/core/limiter/windows';
import { OrderAlreadyShippedError, OrderNotFoundError } from '../../lib/core/orders/order-errors';

const CANCEL = routeErrorCodes('cancelOrder');
const LIST = routeErrorCodes('listOrders');

test("a domain error becomes its route's declared code", () => {
  expect(toHttpError(new OrderNotFoundError('5'), CANCEL)).toMatchObject({
    statusCode: ERRORS.ORDER_NOT_FOUND.status,
    headers: {},
  });
  expect(JSON.parse(toHttpError(new OrderAlreadyShippedError('5'), CANCEL)?.message ?? '')).toEqual(
    errorBody('ORDER_ALREADY_SHIPPED'),
  );
});

test('a code the route does not declare is not answered: the error falls through to the 500', () => {
  expect(toHttpError(new OrderNotFoundError('5'), LIST)).toBeUndefined();
  expect(toHttpError(new Error('a bug'), CANCEL)).toBeUndefined();
});

test('401 and 503 carry their headers on every route', () => {
  expect(toHttpError(new MissingCallerError('none'), LIST)).toMatchObject({
    statusCode: ERRORS.UNAUTHORIZED.status,
    headers: UNAUTHORIZED_ANSWER.headers,
  });
  const throttled = Object.assign(new Error('slow down'), { name: 'ThrottlingException' });
  expect(toHttpError(throttled, LIST)).toMatchObject({
    statusCode: ERRORS.SERVICE_UNAVAILABLE.status,
    headers: SERVICE_UNAVAILABLE_ANSWER.headers,
  });
});

test("a domain error's code is declared with its class but not enumerable: a logged error shows what it did before", () => {
  const shipped = new OrderAlreadyShippedError('5');
  expect(shipped.code).toBe('ORDER_ALREADY_SHIPPED');
  expect(Object.keys(shipped).sort()).toEqual(['name', 'orderId']);
  expect(toHttpError(shipped, CANCEL)?.statusCode).toBe(ERRORS[shipped.code].status);
});

test("the limiter's failures: a revoked key is a 401, a request too late to count or to serve a 503, each logged by its name and item", () => {
  const item = limiterKey('key-1', windowAt('day', 1_795_305_600));
  expect(toHttpError(new KeyRevokedError(item), CANCEL)).toMatchObject({
    statusCode: ERRORS.UNAUTHORIZED.status,
    headers: UNAUTHORIZED_ANSWER.headers,
  });
  for (const failure of [MinutePassedError, NoTimeToServeError]) {
    expect(toHttpError(new failure(item), LIST)).toMatchObject({
      statusCode: ERRORS.SERVICE_UNAVAILABLE.status,
      headers: SERVICE_UNAVAILABLE_ANSWER.headers,
    });
  }
  for (const failure of [KeyRevokedError, MinutePassedError, NoTimeToServeError]) {
    const error = new failure(item);
    expect(error.name).toBe(failure.name);
    expect(error.message).toContain(item);
  }
});
