// API key format: `sok_` + 40 random base62 characters + a 6-character base62 CRC32 checksum of
// what precedes it. The checksum lets a malformed or mistyped key be refused without a database
// read; the 238 random bits make keys unguessable. Only the SHA-256 hash of a key is stored.

import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'sok_';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const KEY_PATTERN_SOURCE = `${KEY_PREFIX}[0-9A-Za-z]{${RANDOM_LENGTH + CHECKSUM_LENGTH}}`;
const KEY_PATTERN = new RegExp(`^${KEY_PATTERN_SOURCE}$`);

/**
 * The shape of a well-formed `Authorization` header: the scheme word in any case, then the key.
 * Used as the API Gateway authorizer's validationRegex and by the local gateway alike.
 */
export const AUTHORIZATION_HEADER_PATTERN_SOURCE = `^[Bb][Ee][Aa][Rr][Ee][Rr] +${KEY_PATTERN_SOURCE}$`;

function checksum(body: string): string {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = ALPHABET[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}

function base62FromBytes(bytes: Buffer, length: number): string {
  let out = '';
  for (const byte of bytes) {
    // 248 = 4 * 62: rejecting the top of the byte range keeps every character equally likely.
    if (byte < 248) out += ALPHABET[byte % 62];
    if (out.length === length) return out;
  }
  return out;
}

/** A key made from the given entropy source; the default is the OS CSPRNG. */
export function generateApiKey(random: (size: number) => Buffer = randomBytes): string {
  let body = '';
  while (body.length < RANDOM_LENGTH) {
    body += base62FromBytes(random(64), RANDOM_LENGTH - body.length);
  }
  const withPrefix = KEY_PREFIX + body;
  return withPrefix + checksum(withPrefix);
}

/** True when the key has the right prefix, alphabet, length and checksum. No I/O. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_PATTERN.test(key)) return false;
  const cut = key.length - CHECKSUM_LENGTH;
  return checksum(key.slice(0, cut)) === key.slice(cut);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The public identifier of a key, derived from its hash so the authorizer can read it directly. */
export function keyIdFromHash(hash: string): string {
  return `key_${hash.slice(0, 20)}`;
}

/** A key id as keyIdFromHash makes it. */
export const KEY_ID_PATTERN = /^key_[0-9a-f]{20}$/;

/**
 * The bearer token of an `Authorization` header value, or undefined when the header is missing,
 * uses another scheme or carries an empty token. The scheme word is case-insensitive (RFC 7235).
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^bearer +(\S+)\s*$/i.exec(header.trim());
  return match?.[1];
}

/** What a redacted key is logged as. */
export const REDACTED_KEY = '[REDACTED-KEY]';
const KEY_START = new RegExp(`${KEY_PREFIX}[0-9A-Za-z]`);
/** A run of characters a key can be written with in a URL: base62, `_` and percent-escapes. */
const URL_WORD = /(?:[0-9A-Za-z_]|%[0-9A-Fa-f]{2})+/g;

function decodeAsciiEscapes(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (escape, hex: string) => {
    const code = parseInt(hex, 16);
    return code < 0x80 ? String.fromCharCode(code) : escape;
  });
}

/**
 * Text for a log line (a request path and query) with anything that may be an API key replaced:
 * every run of URL characters that, percent-escapes decoded, holds the key prefix followed by a
 * key character. It errs on the side of hiding: truncated or mistyped keys are hidden too.
 */
export function redactApiKeys(text: string): string {
  return text.replace(URL_WORD, (word) => (KEY_START.test(decodeAsciiEscapes(word)) ? REDACTED_KEY : word));
}
