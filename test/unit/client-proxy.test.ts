// The typed client and proxy variables: it sends as Node's fetch does, through a proxy only when
// Node was started to honour them (NODE_USE_ENV_PROXY=1; test/http/client-package.test.ts runs the
// example so), and otherwise refuses in one line instead of going past the proxy without a word.
import { StoreOrdersClient } from '../../client/client';
import { proxyRefusal } from '../../client/transport';

// Stand-ins for the dispatchers fetch may have: Node's default, Node's own with
// NODE_USE_ENV_PROXY=1, and one a program set (undici's setGlobalDispatcher).
class Agent {}
class EnvHttpProxyAgent {}
class ProxyAgent {}

const PROXY = 'http://proxy.example:3128';

test.each(['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy'])(
  '%s set with Node’s default dispatcher: one line naming it and the fix',
  (name) => {
    const refusal = proxyRefusal({ [name]: PROXY }, new Agent());
    expect(refusal).toBe(
      `${name} is set, but Node's fetch ignores proxy variables unless Node is started with NODE_USE_ENV_PROXY=1 ` +
        `(Node 22.21 or later): set NODE_USE_ENV_PROXY=1 to go through the proxy (NO_PROXY then applies too), ` +
        `or unset ${name} to connect directly`,
    );
    expect(refusal).not.toContain('\n');
    // Before fetch's first use some Node versions have no dispatcher yet: the default is coming.
    expect(proxyRefusal({ [name]: PROXY }, undefined)).toBe(refusal);
  },
);

test('both variables set: both named', () => {
  expect(proxyRefusal({ HTTPS_PROXY: PROXY, HTTP_PROXY: PROXY }, new Agent())).toMatch(
    /^HTTPS_PROXY and HTTP_PROXY are set, .* or unset HTTPS_PROXY and HTTP_PROXY to connect directly$/,
  );
});

test('no proxy variable (or an empty one), or a dispatcher that is not Node’s default: no refusal', () => {
  expect(proxyRefusal({}, new Agent())).toBeUndefined();
  expect(proxyRefusal({ HTTPS_PROXY: '', NO_PROXY: '*' }, new Agent())).toBeUndefined();
  expect(proxyRefusal({ HTTPS_PROXY: PROXY }, new EnvHttpProxyAgent())).toBeUndefined();
  expect(proxyRefusal({ HTTPS_PROXY: PROXY }, new ProxyAgent())).toBeUndefined();
});

describe('the constructor, in this process (started without NODE_USE_ENV_PROXY)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) {
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    }
  });
  const options = { baseUrl: 'https://api.example/v1', apiKey: 'sok_test' };

  test('HTTPS_PROXY set: new StoreOrdersClient throws the one line', () => {
    process.env.HTTPS_PROXY = PROXY;
    expect(() => new StoreOrdersClient(options)).toThrow(proxyRefusal({ HTTPS_PROXY: PROXY }, new Agent()));
  });

  test('no proxy variable, or a fetch of the caller’s own: no refusal', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) delete process.env[name];
    expect(() => new StoreOrdersClient(options)).not.toThrow();
    process.env.HTTPS_PROXY = PROXY;
    expect(() => new StoreOrdersClient({ ...options, fetch })).not.toThrow();
  });
});
