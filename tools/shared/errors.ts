// The two expected ways a command ends badly. Both are shown as a plain message, never with a
// stack trace: a usage error (exit 2) is the caller's to fix in the command line, a failure
// (exit 1) is the world not being as the command needs it (no such key, stack not running, ...).

import { KEY_PREFIX } from '../../lib/keys/format';
import { NETWORK_ERROR_CODES, networkCodeInMessage } from '../../lib/aws/network-errors';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export class AdminFailure extends Error {
  override readonly name = 'AdminFailure';
}

/** Arguments are echoed in messages, except anything that may be an API key. */
export function shownArgument(text: string): string {
  return text.includes(KEY_PREFIX) ? '(hidden: it looks like an API key)' : text;
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

function field(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function isUnreachable(error: unknown): boolean {
  const code = field(error, 'code');
  if (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) return true;
  if (field(error, 'name') === 'TimeoutError') return true;
  // The SDK re-wraps a network error from another realm (as under jest) keeping only its message.
  return networkCodeInMessage(errorMessage(error)) !== undefined;
}

export function isMissingTable(error: unknown): boolean {
  return field(error, 'name') === 'ResourceNotFoundException';
}

export function isMissingCredentials(error: unknown): boolean {
  return field(error, 'name') === 'CredentialsProviderError';
}

export function isMissingRegion(error: unknown): boolean {
  return error instanceof Error && /region is missing/i.test(error.message);
}

/**
 * DynamoDB answers every client error with 400 (and a `__type`), never 404 or 405: those come from
 * some other HTTP server at the endpoint, such as the local API's port given by mistake.
 */
export function isNotDynamo(error: unknown): boolean {
  const status = (field(error, '$metadata') as { httpStatusCode?: unknown } | undefined)?.httpStatusCode;
  return status === 404 || status === 405;
}
