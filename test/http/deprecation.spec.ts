// Deprecation and stability are properties of a route: a fixture route declared deprecated and
// experimental gets the headers from apiHandler and the markers in the document, end to end.

import type { RateLimiter } from '../../lib/stores/rate-limiter';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiJson, type JsonObject } from '../../lib/contract/openapi/document';
import { bearer, expectError, startLocalStack, type LocalStack } from '../support/local-stack';
import { deprecatedFixtureRoute } from '../support/deprecated-route';
import { lintOpenApi } from '../support/redocly';

const DEPRECATION = `@${Date.UTC(2026, 10, 1) / 1000}`;
const SUNSET = 'Sat, 01 May 2027 00:00:00 GMT';

let stack: LocalStack;

beforeAll(async () => {
  let limiter: RateLimiter | undefined;
  stack = await startLocalStack({
    extraRoutes: [
      deprecatedFixtureRoute(() => {
        if (!limiter) throw new Error('limiter not ready');
        return limiter;
      }),
    ],
    contracts: {
      countOrdersLegacy: {
        success: {
          status: 200,
          description: 'The number of orders.',
          schema: {
            type: 'object',
            additionalProperties: false,
            required: ['count'],
            properties: { count: { type: 'integer' } },
          },
        },
        errors: [],
      },
    },
  });
  limiter = stack.app.limiter;
});
afterAll(() => stack.close());

const operation = () => ((stack.openapi.paths as JsonObject)['/store/order-count'] as JsonObject).get as JsonObject;

test('the response carries Deprecation (RFC 9745) and Sunset (RFC 8594), and keeps the contract', async () => {
  const { key } = await stack.newKey('enterprise', { perMinute: 1, perDay: 100 });
  const ok = await stack.call('GET', '/v1/store/order-count', bearer(key));
  expect(ok.status).toBe(200);
  expect(ok.headers.get('deprecation')).toBe(DEPRECATION);
  expect(ok.headers.get('sunset')).toBe(SUNSET);
  expect(await ok.json()).toEqual({ count: 0 });
  // Also on the limiter's refusal, which apiHandler answers too.
  const refused = await stack.call('GET', '/v1/store/order-count', bearer(key));
  expect(refused.headers.get('deprecation')).toBe(DEPRECATION);
  await expectError(refused, 429, 'RATE_LIMITED');
});

test('stable routes carry neither header', async () => {
  const { key } = await stack.newKey('pro');
  const response = await stack.call('GET', '/v1/store/orders', bearer(key));
  expect(response.headers.get('deprecation')).toBeNull();
  expect(response.headers.get('sunset')).toBeNull();
});

test('the document marks the operation deprecated and experimental, and documents both headers', () => {
  const op = operation();
  expect(op.deprecated).toBe(true);
  expect(op['x-stability']).toBe('experimental');
  const headers = ((op.responses as JsonObject)['200'] as JsonObject).headers as JsonObject;
  expect(headers.Deprecation).toMatchObject({ required: true, schema: { const: DEPRECATION } });
  expect(headers.Sunset).toMatchObject({ required: true, schema: { const: SUNSET } });
  const stable = ((stack.openapi.paths as JsonObject)['/store/orders'] as JsonObject).get as JsonObject;
  expect(stable.deprecated).toBeUndefined();
  expect(stable['x-stability']).toBeUndefined();
});

test('the document with the fixture still passes the linter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-fixture-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, openApiJson(stack.openapi));
    const { status, output } = lintOpenApi(file);
    expect(output).toContain('Your API description is valid');
    expect(status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
