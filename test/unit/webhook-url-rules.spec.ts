import { addressRefusal, checkAddresses, checkUrlForm, DEPLOYED_RULES } from '../../lib/core/webhooks/url-rules';
import { InvalidWebhookEndpointError, WebhookUrlRefusedError } from '../../lib/core/webhooks/webhook-errors';
import { WEBHOOK_LIMITS } from '../../lib/contract/webhooks';

const LOCAL = { allowLoopback: true };

function refusal(url: string, rules = DEPLOYED_RULES): string {
  try {
    checkUrlForm(url, rules);
  } catch (error) {
    if (error instanceof WebhookUrlRefusedError || error instanceof InvalidWebhookEndpointError)
      return `${error.code}: ${error.answerMessage()}`;
    throw error;
  }
  return 'accepted';
}

describe('a URL events may go to', () => {
  test('https with a public host name is accepted as WHATWG serialises it (its host still to be resolved)', () => {
    expect(checkUrlForm('HTTPS://Example.COM:8443/hooks?x=1', DEPLOYED_RULES)).toEqual({
      href: 'https://example.com:8443/hooks?x=1',
      hostname: 'example.com',
      literal: false,
      protocol: 'https:',
    });
    expect(checkUrlForm('https://93.184.216.34/h', DEPLOYED_RULES).literal).toBe(true);
    expect(checkUrlForm('https://[2606:4700:4700::1111]/h', DEPLOYED_RULES).hostname).toBe('2606:4700:4700::1111');
  });

  test.each([
    ['not a URL', 'INVALID_WEBHOOK_ENDPOINT: url "not a URL" is not an absolute URL'],
    ['/relative/path', 'INVALID_WEBHOOK_ENDPOINT: url "/relative/path" is not an absolute URL'],
    [
      `https://example.com/${'a'.repeat(WEBHOOK_LIMITS.urlMaxLength)}`,
      'INVALID_WEBHOOK_ENDPOINT: url is longer than 2048',
    ],
    ['http://example.com/h', 'WEBHOOK_URL_REFUSED: url must be https, not "http"'],
    ['ftp://example.com/h', 'WEBHOOK_URL_REFUSED: url must be https, not "ftp"'],
    ['https://user:pass@example.com/h', 'WEBHOOK_URL_REFUSED: url must not carry a user name or password'],
    ['https://user@example.com/h', 'WEBHOOK_URL_REFUSED: url must not carry a user name or password'],
    ['https://example.com/h#frag', 'WEBHOOK_URL_REFUSED: url must not have a fragment'],
  ])('%s is refused', (url, message) => {
    expect(refusal(url)).toContain(message);
  });

  test.each([
    ['https://127.0.0.1/h', '127.0.0.1 is a loopback address'],
    ['https://127.1/h', '127.0.0.1 is a loopback address'],
    ['https://2130706433/h', '127.0.0.1 is a loopback address'],
    ['https://0x7f.0.0.1/h', '127.0.0.1 is a loopback address'],
    ['https://0177.0.0.1/h', '127.0.0.1 is a loopback address'],
    ['https://[::1]/h', '::1 is a loopback address'],
    ['https://[::ffff:127.0.0.1]/h', '::ffff:7f00:1 is a loopback address'],
    ['https://169.254.169.254/latest/meta-data/', '169.254.169.254 is the cloud metadata address'],
    ['https://0xa9.0xfe.0xa9.0xfe/', '169.254.169.254 is the cloud metadata address'],
    ['https://[fd00:ec2::254]/', 'fd00:ec2::254 is the cloud metadata address'],
    ['https://[::ffff:169.254.169.254]/', '::ffff:a9fe:a9fe is the cloud metadata address'],
    ['https://10.0.0.1/h', '10.0.0.1 is a private address'],
    ['https://10.255.255.255/h', '10.255.255.255 is a private address'],
    ['https://012.1.2.3/h', '10.1.2.3 is a private address'],
    ['https://172.16.0.1/h', '172.16.0.1 is a private address'],
    ['https://172.31.255.1/h', '172.31.255.1 is a private address'],
    ['https://192.168.1.1/h', '192.168.1.1 is a private address'],
    ['https://[fc00::1]/h', 'fc00::1 is a private address'],
    ['https://[::ffff:10.0.0.1]/h', '::ffff:a00:1 is a private address'],
    ['https://169.254.1.1/h', '169.254.1.1 is a link-local address'],
    ['https://[fe80::1]/h', 'fe80::1 is a link-local address'],
    ['https://0.0.0.0/h', '0.0.0.0 is the unspecified address'],
    ['https://0/h', '0.0.0.0 is the unspecified address'],
    ['https://[::]/h', ':: is the unspecified address'],
    ['https://224.0.0.1/h', '224.0.0.1 is a multicast or broadcast address'],
    ['https://255.255.255.255/h', '255.255.255.255 is a multicast or broadcast address'],
    ['https://[ff02::1]/h', 'ff02::1 is a multicast or broadcast address'],
    ['https://100.64.0.1/h', '100.64.0.1 is a shared (carrier-grade NAT) address'],
    ['https://100.127.255.254/h', '100.127.255.254 is a shared (carrier-grade NAT) address'],
    ['https://[64:ff9b::a9fe:a9fe]/h', '64:ff9b::a9fe:a9fe is a reserved address'],
    ['https://[::a9fe:a9fe]/h', '::a9fe:a9fe is a reserved address'],
    ['https://240.0.0.1/h', '240.0.0.1 is a reserved address'],
  ])('the literal address in %s is refused: %s', (url, why) => {
    expect(refusal(url)).toBe(`WEBHOOK_URL_REFUSED: url is refused: ${why}`);
  });

  test.each([
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
  ])('the public address %s is accepted', (address) => {
    expect(addressRefusal(address, DEPLOYED_RULES)).toBeUndefined();
  });

  test('the local stack allows loopback, http included, and nothing else it would refuse', () => {
    expect(refusal('http://127.0.0.1:4000/h', LOCAL)).toBe('accepted');
    expect(refusal('http://[::1]:4000/h', LOCAL)).toBe('accepted');
    expect(refusal('https://127.0.0.1/h', LOCAL)).toBe('accepted');
    expect(refusal('https://10.0.0.1/h', LOCAL)).toBe(
      'WEBHOOK_URL_REFUSED: url is refused: 10.0.0.1 is a private address',
    );
    expect(refusal('http://169.254.169.254/', LOCAL)).toContain('the cloud metadata address');
    // http to a public address: only loopback may be http, even locally.
    expect(refusal('http://93.184.216.34/h', LOCAL)).toContain('url must be https');
    expect(refusal('ftp://127.0.0.1/h', LOCAL)).toContain('url must be https (or http to a loopback address');
  });

  test("a host name's addresses: any refused one refuses the URL, and http needs them all loopback", () => {
    const named = checkUrlForm('https://hooks.example.com/h', DEPLOYED_RULES);
    expect(() => checkAddresses(named, ['93.184.216.34', '2606:4700::1'], DEPLOYED_RULES)).not.toThrow();
    expect(() => checkAddresses(named, ['93.184.216.34', '10.1.2.3'], DEPLOYED_RULES)).toThrow(
      'url is refused: 10.1.2.3 is a private address ("hooks.example.com" resolves to it)',
    );
    expect(() => checkAddresses(named, [], DEPLOYED_RULES)).toThrow('has no address');
    const local = checkUrlForm('http://localhost:4000/h', LOCAL);
    expect(() => checkAddresses(local, ['127.0.0.1', '::1'], LOCAL)).not.toThrow();
    expect(() => checkAddresses(local, ['127.0.0.1', '93.184.216.34'], LOCAL)).toThrow('url must be https');
    expect(() => checkAddresses(named, ['127.0.0.1'], DEPLOYED_RULES)).toThrow('127.0.0.1 is a loopback address');
  });
});
