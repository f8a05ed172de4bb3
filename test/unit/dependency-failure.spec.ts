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
  // Beyond what the SDK retries (smithy's classification): DynamoDB's conflict, and our deadlines' aborts.
  ['a transaction conflict', { name: 'TransactionConflictException', $fault: 'client' }],
  ['a call aborted by its deadline', Object.assign(new Error('Request aborted'), { name: 'AbortError' })],
  ['a 502 from whatever answered', { name: 'UnknownError', $metadata: { httpStatusCode: 502 } }],
  ['a 429 from the service', { name: 'UnknownError', $metadata: { httpStatusCode: 429 } }],
])('%s is a dependency failure', (_, error) => {
  expect(isDependencyFailure(error)).toBe(true);
});

test.each([
  ['a failed condition', { name: 'ConditionalCheckFailedException', $fault: 'client' }],
  ['a wrapped bug', new Error('AWS SDK error wrapper for TypeError: x is not a function')],
  ['a bug mentioning a timeout', new Error('TimeoutError: socket hang up')],
  ['not an object', 'ECONNRESET'],
  ['a refusal of the request', { name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 } }],
  ['an error whose cause is null', new Error('outer', { cause: null })],
  ['a wrapped socket error of another kind', new Error('AWS SDK error wrapper for Error: open EACCES /tmp/x')],
])('%s is not', (_, error) => {
  expect(isDependencyFailure(error)).toBe(false);
});

/** Node's socket codes for an endpoint that cannot be reached or a connection that broke, by code and named only in a message. */
test.each([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
])('%s is a dependency failure, by its code or in a message', (code) => {
  expect(isDependencyFailure({ name: 'Error', code })).toBe(true);
  expect(isDependencyFailure(new Error(`AWS SDK error wrapper for Error: connect ${code} 127.0.0.1:9`))).toBe(true);
});
