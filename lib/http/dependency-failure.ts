/**
 * True when an error means a dependency (DynamoDB) failed, throttled or could not be reached, as
 * opposed to a bug: such a request gets 503 SERVICE_UNAVAILABLE and may be retried.
 */
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
]);

const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function isDependencyFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (DEPENDENCY_ERROR_NAMES.has(error.name)) return true;
  const { code, $fault, $metadata } = error as Error & {
    code?: unknown;
    $fault?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  // Any 5xx answered by the AWS service itself is the dependency's failure, not ours.
  if ($fault === 'server' || ($metadata?.httpStatusCode ?? 0) >= 500) return true;
  return error.cause !== undefined && error.cause !== error && isDependencyFailure(error.cause);
}
