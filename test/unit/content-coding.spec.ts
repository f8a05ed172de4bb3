import { chooseContentCoding, parseAcceptEncoding, requestHeader } from '../../lib/edge/content-coding';

describe('chooseContentCoding', () => {
  test.each([
    [undefined, 'identity'],
    ['', 'identity'],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['deflate, gzip, br, zstd', 'br'],
    ['deflate', 'identity'],
    ['gzip;q=0', 'identity'],
    ['gzip;q=0, br;q=0', 'identity'],
    ['br;q=0, gzip', 'gzip'],
    ['gzip;q=0.9, br;q=0.5', 'gzip'],
    ['gzip;q=0.5, br;q=0.5', 'br'],
    ['gzip ; q=0.8 , br ; Q=0.7', 'gzip'],
    ['*', 'br'],
    ['*;q=0', 'identity'],
    ['*;q=0, gzip', 'gzip'],
    ['*, br;q=0', 'gzip'],
    ['*;q=0.3, gzip;q=0', 'br'],
    ['identity', 'identity'],
    ['identity, gzip', 'gzip'],
    ['identity;q=1, gzip;q=0.5', 'identity'],
    ['identity;q=0, gzip', 'gzip'],
    ['identity;q=0, *', 'br'],
    // Nothing offered is acceptable: the body goes uncompressed rather than as a 406.
    ['identity;q=0', 'identity'],
    ['identity;q=0, deflate', 'identity'],
    ['gzip;q=0.0005', 'identity'],
  ] as const)('Accept-Encoding %p gives %p', (header, coding) => {
    expect(chooseContentCoding(header)).toBe(coding);
  });
});

describe('parseAcceptEncoding', () => {
  test('reads q-values, three decimals at most, each coding at its best weight', () => {
    expect(Object.fromEntries(parseAcceptEncoding('gzip;q=0.250, br;q=1.0, gzip;q=0.5, zstd'))).toEqual({
      gzip: 0.5,
      br: 1,
      zstd: 1,
    });
  });

  test.each(['gzip;q=2', 'gzip;q=1.5', 'gzip;q=-1', 'gzip;q=abc', 'gzip;q=', 'gzip;q=0.1234', 'gzip;q'])(
    'a malformed q-value makes the coding unusable: %p',
    (header) => {
      expect(parseAcceptEncoding(header).get('gzip')).toBe(0);
      expect(chooseContentCoding(header)).toBe('identity');
    },
  );

  test('ignores empty entries and other parameters', () => {
    expect(Object.fromEntries(parseAcceptEncoding(' , gzip;level=9 ,, br;q=0.1'))).toEqual({ gzip: 1, br: 0.1 });
  });
});

describe('requestHeader', () => {
  test('matches the name in any case and joins repeated headers', () => {
    expect(requestHeader({ headers: { 'accept-encoding': 'gzip' } }, 'Accept-Encoding')).toBe('gzip');
    expect(
      requestHeader(
        { headers: { 'Accept-Encoding': 'br' }, multiValueHeaders: { 'Accept-Encoding': ['gzip;q=0', 'br'] } },
        'accept-encoding',
      ),
    ).toBe('gzip;q=0, br');
    expect(requestHeader({ headers: null, multiValueHeaders: null }, 'Accept-Encoding')).toBeUndefined();
  });
});
