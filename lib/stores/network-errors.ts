// Node socket error codes that mean the endpoint could not be reached or the connection broke:
// read by the service's dependency-failure check and by the admin command's "cannot reach" check.
export const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The SDK keeps only the message of a socket error from another realm: find a code among its words. */
export function networkCodeInMessage(message: string): string | undefined {
  return message.split(/[^A-Z_]+/).find((word) => NETWORK_ERROR_CODES.has(word));
}
