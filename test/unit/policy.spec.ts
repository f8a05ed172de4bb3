import { policyAllows } from '../../tools/local/policy';
import type { PolicyDocument } from 'aws-lambda';
import { wholeApiResource } from '../../lib/edge/authorizer';

const arn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/store/orders';

test('the Allow policy of one route covers every route of the stage', () => {
  const resource = wholeApiResource(arn);
  expect(resource).toBe('arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*');
  const policy: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: 'execute-api:Invoke', Resource: resource }],
  };
  expect(policyAllows(policy, arn)).toBe(true);
  expect(policyAllows(policy, 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/DELETE/store/orders/5')).toBe(true);
  expect(policyAllows(policy, 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v2/GET/store/orders')).toBe(false);
});

test('an explicit Deny wins', () => {
  const policy: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Action: 'execute-api:Invoke', Resource: '*' },
      { Effect: 'Deny', Action: 'execute-api:Invoke', Resource: arn },
    ],
  };
  expect(policyAllows(policy, arn)).toBe(false);
});
