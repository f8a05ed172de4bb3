// A deprecated fixture route, answered through the real apiHandler, for the tests that need the
// deprecation headers end to end (the deprecation test and the smoke suite's run).
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { apiHandler } from '../../lib/edge/api-handler';
import type { RateLimiter } from '../../lib/stores/rate-limiter';
import type { Route } from '../../lib/contract/routes';

export const DEPRECATED_FIXTURE: Route = {
  operationId: 'countOrdersLegacy',
  method: 'GET',
  path: '/store/order-count',
  function: 'list-orders',
  tag: 'orders',
  summary: 'Count orders (test fixture)',
  streaming: false,
  stability: 'experimental',
  deprecated: { since: '2026-11-01T00:00:00Z', sunset: '2027-05-01T00:00:00Z' },
};

/** The fixture with a handler answering `{"count":0}`; the limiter is asked for once the stack runs. */
export function deprecatedFixtureRoute(limiter: () => RateLimiter) {
  return {
    route: DEPRECATED_FIXTURE,
    handler: (event: APIGatewayProxyEvent, context: Context) =>
      apiHandler(DEPRECATED_FIXTURE, { limiter: limiter() }, async () => ({
        statusCode: 200,
        headers: { 'Content-Type': 'application/json' },
        body: '{"count":0}',
      }))(event, context),
  };
}
