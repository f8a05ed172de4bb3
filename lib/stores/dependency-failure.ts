// Which errors are a dependency's (DynamoDB's) failure rather than a bug: what the AWS SDK itself
// retries, as @smithy/core classifies it (throttling, transient: timeouts, Node's network codes,
// 500-504; other 5xx), and the few it does not see the same way.
import { isServerError, isThrottlingError, isTransientError } from '@smithy/core/retry';

type SdkError = Parameters<typeof isTransientError>[0];

/**
 * Failures smithy's lists leave out. DynamoDB's TransactionConflictException (another transaction
 * held the item; the SDK does not retry it). A call aborted by its signal: smithy counts AbortError
 * as the caller's choice, but only our deadlines abort a call, when DynamoDB was too slow
 * (lib/stores/call-deadlines.ts); the SDK's retry layer replaces the signal's reason with an
 * AbortError of its own, so the name is all that is left.
 */
const ALSO_DEPENDENCY_FAILURES = new Set(['TransactionConflictException', 'AbortError']);

/**
 * What the SDK's retry layer makes of an error that is not an `Error` of its own realm: the
 * original's name and message survive only as text, e.g. "AWS SDK error wrapper for TimeoutError:
 * socket hang up" (the HTTP handler names a reset connection TimeoutError; the code is lost).
 */
const SDK_WRAPPER_OF = /^AWS SDK error wrapper for (\w+)/;

/** A Node socket error code that smithy counts as transient: refused, reset, timed out, unresolved, unreachable. */
export const isNetworkCode = (code: string): boolean =>
  isTransientError({ name: 'Error', message: '', code } as SdkError);

/** The SDK keeps only the message of a socket error from another realm: find a code among its words. */
export function networkCodeInMessage(message: string): string | undefined {
  return message.split(/[^A-Z_]+/).find((word) => word !== '' && isNetworkCode(word));
}

/**
 * True when an error means a dependency (DynamoDB) failed, throttled or could not be reached, as
 * opposed to a bug: such a request gets 503 SERVICE_UNAVAILABLE and may be retried.
 */
export function isDependencyFailure(error: unknown, depth = 0): boolean {
  // Structural, not `instanceof Error`: socket errors may come from another realm (a VM context).
  if (typeof error !== 'object' || error === null || depth > 5) return false;
  const { name, code, message, $fault, $metadata, $retryable, cause } = error as Record<string, unknown>;
  const text = typeof message === 'string' ? message : '';
  if (typeof name === 'string' && ALSO_DEPENDENCY_FAILURES.has(name)) return true;
  // The error alone, its causes walked below: smithy's own walk throws on a null cause.
  const alone = { name: String(name), message: text, code, $metadata, $retryable } as SdkError;
  if (isThrottlingError(alone) || isTransientError(alone) || isServerError(alone)) return true;
  // A fault the service declared, whatever status carried it.
  if ($fault === 'server') return true;
  if (networkCodeInMessage(text) !== undefined) return true;
  const wrapped = SDK_WRAPPER_OF.exec(text)?.[1];
  if (wrapped !== undefined && isDependencyFailure({ name: wrapped }, depth + 1)) return true;
  return cause !== error && isDependencyFailure(cause, depth + 1);
}
