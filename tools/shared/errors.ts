// The two expected ways a command ends badly. Both are shown as a plain message, never with a
// stack trace: a usage error (exit 2) is the caller's to fix in the command line, a failure
// (exit 1) is the world not being as the command needs it (no such key, stack not running, ...).

import { KEY_PREFIX } from '../../lib/core/access/key-format';
import { shownWords } from './shown-input';
import { isNetworkCode, networkCodeInMessage } from '../../lib/stores/dependency-failure';

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export class AdminFailure extends Error {
  override readonly name = 'AdminFailure';
}

/**
 * node:util parseArgs' message for a command-line mistake, without its advice on positionals
 * (meant for script authors) and with the argument it echoes shortened.
 */
export function parseArgsMessage(error: unknown): string {
  return shownArgument(errorMessage(error).replace(/\. To specify a positional.*$/s, ''));
}

/** Arguments are echoed in messages, shortened, except anything that may be an API key. */
export function shownArgument(text: string): string {
  return text.includes(KEY_PREFIX) ? '(hidden: it looks like an API key)' : shownWords(text);
}

/** Stopped by Ctrl-C: the message says what was done and how to go on (exit 130, as a shell shows SIGINT). */
export class Interrupted extends Error {
  override readonly name = 'Interrupted';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

/** A property of a value that may be an object (an SDK error, its metadata), or undefined. */
export function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** An error's message; also one from another realm (node's own, as jest sees them), which is no `instanceof Error`. */
export function errorMessage(error: unknown): string {
  const message = field(error, 'message');
  return typeof message === 'string' ? message : String(error);
}

/** What `read` returns; an Error it throws (a setting that is wrong) becomes a usage error of this kind. */
export function checkedSetting<T>(read: () => T, Usage: new (message: string) => Error = UsageError): T {
  try {
    return read();
  } catch (error) {
    throw new Usage(errorMessage(error));
  }
}

export function isUnreachable(error: unknown): boolean {
  const code = field(error, 'code');
  if (typeof code === 'string' && isNetworkCode(code)) return true;
  if (field(error, 'name') === 'TimeoutError') return true;
  // The SDK re-wraps a network error from another realm (as under jest) keeping only its message.
  return networkCodeInMessage(errorMessage(error)) !== undefined;
}

export function isMissingTable(error: unknown): boolean {
  return field(error, 'name') === 'ResourceNotFoundException';
}

/** What to do when no AWS credentials are found, or undefined for any other error. */
export function missingCredentialsMessage(error: unknown): string | undefined {
  if (field(error, 'name') !== 'CredentialsProviderError') return undefined;
  return `No AWS credentials found (${errorMessage(error)}). Configure them, e.g. AWS_PROFILE or \`aws sso login\`.`;
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
