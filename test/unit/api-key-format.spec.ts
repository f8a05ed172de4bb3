import {
  AUTHORIZATION_HEADER_PATTERN_SOURCE,
  bearerToken,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  keyIdFromHash,
  KEY_ID_PATTERN,
} from '../../lib/core/access/key-format';

describe('API key format', () => {
  test('generated keys are well formed, distinct and carry the prefix', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    expect(new Set(keys).size).toBe(keys.length);
    for (const key of keys) {
      expect(key).toMatch(/^sok_[0-9A-Za-z]{46}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
    }
  });

  test('any single changed character breaks the checksum', () => {
    const key = generateApiKey();
    for (let i = 4; i < key.length; i++) {
      const replacement = key[i] === 'A' ? 'B' : 'A';
      const broken = key.slice(0, i) + replacement + key.slice(i + 1);
      expect(isWellFormedApiKey(broken)).toBe(false);
    }
  });

  test('refuses wrong prefix, length and alphabet', () => {
    const key = generateApiKey();
    expect(isWellFormedApiKey(`xok_${key.slice(4)}`)).toBe(false);
    expect(isWellFormedApiKey(key.slice(0, -1))).toBe(false);
    expect(isWellFormedApiKey(`${key}0`)).toBe(false);
    expect(isWellFormedApiKey(`${key.slice(0, 10)}-${key.slice(11)}`)).toBe(false);
    expect(isWellFormedApiKey('')).toBe(false);
  });

  test('hash and id are stable and do not contain the key', () => {
    const key = generateApiKey();
    const hash = hashApiKey(key);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).toBe(hash);
    expect(keyIdFromHash(hash)).toBe(`key_${hash.slice(0, 20)}`);
    expect(keyIdFromHash(hash)).toMatch(KEY_ID_PATTERN);
    expect(keyIdFromHash(hash.toUpperCase())).not.toMatch(KEY_ID_PATTERN);
    expect(hash).not.toContain(key.slice(4, 20));
  });

  test('bearer token: scheme is case-insensitive, anything else is refused', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('bearer abc')).toBe('abc');
    expect(bearerToken('BEARER   abc ')).toBe('abc');
    expect(bearerToken(undefined)).toBeUndefined();
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken('Bearer ')).toBeUndefined();
    expect(bearerToken('Bearer a b')).toBeUndefined();
  });

  test('the header pattern (the authorizer validationRegex) accepts exactly well-shaped headers', () => {
    const pattern = new RegExp(AUTHORIZATION_HEADER_PATTERN_SOURCE);
    const key = generateApiKey();
    expect(pattern.test(`Bearer ${key}`)).toBe(true);
    expect(pattern.test(`bEaReR ${key}`)).toBe(true);
    expect(pattern.test(`Basic ${key}`)).toBe(false);
    expect(pattern.test(`Bearer ${key}x`)).toBe(false);
    expect(pattern.test('Bearer ')).toBe(false);
  });
});
