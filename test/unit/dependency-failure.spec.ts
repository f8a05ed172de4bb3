import { isDependencyFailure } from '../../lib/stores/dependency-failure';

/** What becomes 503 SERVICE_UNAVAILABLE (a dependency's fault) rather than 500 (ours). */
test.each([
  ['a throttling error by name', { name: 'ProvisionedThroughputExceededException' }],
  ['a socket error by code', { name: 'Error', code: 'ECONNREFUSED' }],
  [
    'a wrapped socket error whose code survives in the message',
    new Error('AWS SDK error wrapper for Error: connect ECONNREFUSED 127.0.0.1:9'),
  ],
  // What the SDK makes of a reset connection whose error came from another realm (jest's VM context).
  ['a wrapped timeout, named only in the message', new Error('AWS SDK error wrapper for TimeoutError: socket hang up')],
  ['a 5xx from the service', { name: 'InternalFailure', $fault: 'server' }],
  ['a dependency failure as the cause', new Error('outer', { cause: { code: 'ECONNRESET' } })],
])('%s is a dependency failure', (_, error) => {
  expect(isDependencyFailure(error)).toBe(true);
});

test.each([
  ['a failed condition', { name: 'ConditionalCheckFailedException', $fault: 'client' }],
  ['a wrapped bug', new Error('AWS SDK error wrapper for TypeError: x is not a function')],
  ['a bug mentioning a timeout', new Error('TimeoutError: socket hang up')],
  ['not an object', 'ECONNRESET'],
])('%s is not', (_, error) => {
  expect(isDependencyFailure(error)).toBe(false);
});
