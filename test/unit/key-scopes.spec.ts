// The scope rule: which methods a scope covers, and the policy resources the authorizer gives it.
import type { PolicyDocument } from 'aws-lambda';
import { DEFAULT_KEY_SCOPE, isKeyScope, KEY_SCOPES, scopeAllows, scopesRefusing } from '../../lib/contract/scopes';
import { scopeResources } from '../../lib/core/access/scope-policy';
import type { HttpMethod } from '../../lib/contract/routes';
import { policyAllows } from '../../tools/local/policy';

const STAGE = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1';
const METHODS: HttpMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

function policy(scope: (typeof KEY_SCOPES)[number]): PolicyDocument {
  const Resource = scopeResources(`${STAGE}/GET/store/orders`, scope);
  return { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource }] };
}

test('a full key may call every method; a read key GET alone', () => {
  for (const method of METHODS) {
    expect(scopeAllows('full', method)).toBe(true);
    expect(scopeAllows('read', method)).toBe(method === 'GET');
  }
  expect(scopesRefusing('GET')).toEqual([]);
  expect(scopesRefusing('DELETE')).toEqual(['read']);
});

test.each(KEY_SCOPES)("the %s scope's policy allows on any path exactly the methods the scope covers", (scope) => {
  for (const method of METHODS) {
    for (const path of ['/store/orders', '/store/orders/5', '/pets/9223372036854775807']) {
      expect(policyAllows(policy(scope), `${STAGE}/${method}${path}`)).toBe(scopeAllows(scope, method));
    }
  }
  // Never another stage of the same API.
  expect(policyAllows(policy(scope), 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v2/GET/store/orders')).toBe(
    false,
  );
});

test('keys without a scope have full access; unknown scopes are not scopes', () => {
  for (const method of METHODS) expect(scopeAllows(DEFAULT_KEY_SCOPE, method)).toBe(true);
  expect(isKeyScope('read')).toBe(true);
  expect(isKeyScope('write')).toBe(false);
  expect(isKeyScope(undefined)).toBe(false);
});
