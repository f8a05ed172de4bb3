import { NETWORK_ERROR_CODES, networkCodeInMessage } from './network-errors';

/** Error names of a dependency that failed, throttled or timed out. */
const DEPENDENCY_ERROR_NAMES = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'TransactionConflictException',
  // A call aborted by its signal: only ours carry one, aborted when a write attempt's time is over
  // or its request is answered at its deadline (lib/stores/call-deadlines.ts). The SDK's retry layer
  // replaces the signal's reason with an AbortError of its own, so the name is all that is left.
  'AbortError',
]);

/**
 * What the SDK's retry layer makes of an error that is not an `Error` of its own realm: the
 * original's name and message survive only as text, e.g. "AWS SDK error wrapper for TimeoutError:
 * socket hang up" (the HTTP handler names a reset connection TimeoutError; the code is lost).
 */
const SDK_WRAPPER_OF = /^AWS SDK error wrapper for (\w+)/;

/**
 * True when an error means a dependency (DynamoDB) failed, throttled or could not be reached, as
 * opposed to a bug: such a request gets 503 SERVICE_UNAVAILABLE and may be retried.
 */
export function isDependencyFailure(error: unknown, depth = 0): boolean {
  // Structural, not `instanceof Error`: socket errors may come from another realm (a VM context).
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { name, code, message, $fault, $metadata, cause } = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    cause?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  if (typeof name === 'string' && DEPENDENCY_ERROR_NAMES.has(name)) return true;
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  // The SDK wraps a socket error it does not recognise as an Error into a new Error whose only
  // trace of the code is its message.
  if (typeof message === 'string' && networkCodeInMessage(message) !== undefined) return true;
  const wrapped = typeof message === 'string' ? SDK_WRAPPER_OF.exec(message)?.[1] : undefined;
  if (wrapped !== undefined && DEPENDENCY_ERROR_NAMES.has(wrapped)) return true;
  // Any 5xx answered by the AWS service itself is the dependency's failure, not ours.
  if ($fault === 'server' || ($metadata?.httpStatusCode ?? 0) >= 500) return true;
  return cause !== error && isDependencyFailure(cause, depth + 1);
}
