import { errorJson } from '../../lib/contract/errors';
import { buildOpenApiDocument } from '../../lib/contract/openapi/document';
import { PLAN_LIMITS } from '../../lib/contract/plans';
import { contractValidator, type ObservedResponse } from '../support/contract';

/** The validator itself: it must reject what the document does not give, or it proves nothing. */
const validate = contractValidator(buildOpenApiDocument());

const { perMinute } = PLAN_LIMITS.free;
const limits = {
  'X-RateLimit-Limit': String(perMinute),
  'X-RateLimit-Remaining': String(perMinute - 1),
  'X-RateLimit-Reset': '1795392060',
};
const json = { 'Content-Type': 'application/json' };

function observed(
  method: string,
  url: string,
  status: number,
  headers: Record<string, string>,
  body = '',
): ObservedResponse {
  return { method, url, status, headers: new Headers(headers), body };
}

test('conforming responses pass', () => {
  expect(
    validate(
      observed(
        'GET',
        '/v1/store/orders',
        200,
        { ...limits, ...json, Vary: 'Accept-Encoding', 'Content-Encoding': 'gzip' },
        '[{"id":9223372036854775807,"status":"pending"}]',
      ),
    ),
  ).toEqual([]);
  expect(validate(observed('DELETE', '/v1/store/orders/5', 204, limits))).toEqual([]);
  expect(
    validate(
      observed('GET', '/v1/store/orders', 401, { ...json, 'WWW-Authenticate': 'Bearer' }, errorJson('UNAUTHORIZED')),
    ),
  ).toEqual([]);
  expect(
    validate(observed('GET', '/v1/nope', 404, { ...json, 'X-Amzn-RequestId': 'r', Date: 'x' }, errorJson('NOT_FOUND'))),
  ).toEqual([]);
  expect(
    validate(observed('POST', '/v1/store/orders', 405, { ...json, Allow: 'GET' }, errorJson('METHOD_NOT_ALLOWED'))),
  ).toEqual([]);
  // The gateway may refuse any request it cannot pass on, before an operation is chosen.
  expect(validate(observed('GET', '/v1/store/orders', 400, json, errorJson('BAD_REQUEST')))).toEqual([]);
  expect(validate(observed('DELETE', '/v1/store/orders/5', 400, json, errorJson('BAD_REQUEST')))).toEqual([]);
});

test.each<[string, ObservedResponse, RegExp]>([
  [
    'an undocumented status',
    observed('GET', '/v1/store/orders', 404, json, errorJson('NOT_FOUND')),
    /status 404 is not documented/,
  ],
  [
    'an undocumented header',
    observed('DELETE', '/v1/store/orders/5', 204, { ...limits, 'X-Debug': '1' }),
    /x-debug is not documented/,
  ],
  ['a missing required header', observed('DELETE', '/v1/store/orders/5', 204, {}), /required header x-ratelimit-limit/],
  [
    'a header value off its schema',
    observed('DELETE', '/v1/store/orders/5', 204, { ...limits, 'X-RateLimit-Remaining': 'many' }),
    /x-ratelimit-remaining/,
  ],
  [
    'an undocumented field',
    observed('GET', '/v1/store/orders', 200, { ...limits, ...json }, '[{"id":1,"status":"pending","note":"x"}]'),
    /additional properties/,
  ],
  [
    'a null field',
    observed('GET', '/v1/store/orders', 200, { ...limits, ...json }, '[{"id":1,"petId":null,"status":"pending"}]'),
    /petId/,
  ],
  [
    'a status outside the enum',
    observed('GET', '/v1/store/orders', 200, { ...limits, ...json }, '[{"id":1,"status":"lost"}]'),
    /status/,
  ],
  [
    'an id written as a string',
    observed('GET', '/v1/store/orders', 200, { ...limits, ...json }, '[{"id":"1","status":"pending"}]'),
    /\/0\/id/,
  ],
  [
    'a code of another status',
    observed('DELETE', '/v1/store/orders/5', 404, { ...limits, ...json }, errorJson('NOT_FOUND')),
    /code/,
  ],
  ['a body on 204', observed('DELETE', '/v1/store/orders/5', 204, { ...limits, ...json }, '{}'), /no.*documented/],
  [
    'another content type',
    observed('GET', '/v1/store/orders', 200, { ...limits, 'Content-Type': 'text/plain' }, '[]'),
    /content type/,
  ],
  [
    'rate-limit headers on a 401',
    observed(
      'GET',
      '/v1/store/orders',
      401,
      { ...limits, ...json, 'WWW-Authenticate': 'Bearer' },
      errorJson('UNAUTHORIZED'),
    ),
    /x-ratelimit-limit is not documented/,
  ],
  [
    'ORDER_NOT_FOUND without rate-limit headers',
    observed('DELETE', '/v1/store/orders/5', 404, json, errorJson('ORDER_NOT_FOUND')),
    /required header x-ratelimit-limit/,
  ],
  [
    'rate-limit headers on the gateway 400 of listOrders',
    observed('GET', '/v1/store/orders', 400, { ...limits, ...json }, errorJson('BAD_REQUEST')),
    /x-ratelimit-limit is not documented/,
  ],
  [
    'a 405 without Allow',
    observed('POST', '/v1/store/orders', 405, json, errorJson('METHOD_NOT_ALLOWED')),
    /required header allow/,
  ],
])('rejects %s', (_, response, problem) => {
  const problems = validate(response);
  expect(problems.join('\n')).toMatch(problem);
});
