// The resolver check: a host name is resolved (every address) and each address checked. Names that
// resolve to refused addresses come from an injected resolver; `localhost` goes through the system's.
import {
  checkDestination,
  DestinationLookupFailedError,
  RESOLVE_TIMEOUT_MS,
} from '../../lib/stores/webhook-destinations';
import { DEPLOYED_RULES } from '../../lib/core/webhooks/url-rules';
import { WebhookUrlRefusedError } from '../../lib/core/webhooks/webhook-errors';
import { VirtualTime } from '../support/virtual-time';

const LOCAL = { allowLoopback: true };
const resolving =
  (table: Record<string, string[]>) =>
  async (host: string): Promise<string[]> => {
    const found = table[host];
    if (found) return found;
    throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  };
const DNS = resolving({
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1::1'],
  'metadata.attacker.example': ['169.254.169.254'],
  'internal.attacker.example': ['93.184.216.34', '10.0.0.7'],
  'loop.attacker.example': ['127.0.0.1'],
  'mapped.attacker.example': ['::ffff:192.168.0.1'],
});

test('a host whose every address is public is accepted, with the addresses it was checked with', async () => {
  await expect(
    checkDestination('https://hooks.example.com/in', { rules: DEPLOYED_RULES, resolve: DNS }),
  ).resolves.toEqual({
    url: 'https://hooks.example.com/in',
    hostname: 'hooks.example.com',
    addresses: ['93.184.216.34', '2606:2800:220:1::1'],
  });
});

test.each([
  ['metadata.attacker.example', '169.254.169.254 is the cloud metadata address'],
  ['internal.attacker.example', '10.0.0.7 is a private address'],
  ['loop.attacker.example', '127.0.0.1 is a loopback address'],
  ['mapped.attacker.example', '::ffff:192.168.0.1 is a private address'],
  ['nowhere.example', 'does not resolve to any address'],
])('%s is refused: %s', async (host, why) => {
  const check = checkDestination(`https://${host}/in`, { rules: DEPLOYED_RULES, resolve: DNS });
  await expect(check).rejects.toThrow(WebhookUrlRefusedError);
  await expect(check).rejects.toThrow(why);
});

test('localhost, resolved by the system: refused deployed, accepted (http too) on the local stack', async () => {
  await expect(checkDestination('https://localhost:4000/in', { rules: DEPLOYED_RULES })).rejects.toThrow(
    /url is refused: (127\.0\.0\.1|::1) is a loopback address \("localhost" resolves to it\)/,
  );
  const local = await checkDestination('http://localhost:4000/in', { rules: LOCAL });
  expect(local.addresses.length).toBeGreaterThan(0);
  expect(local.addresses.every((address) => address === '::1' || address.startsWith('127.'))).toBe(true);
});

test('a resolver that fails or does not answer in time is a 503, never an acceptance', async () => {
  const failing = async () => {
    throw Object.assign(new Error('queryA ESERVFAIL'), { code: 'ESERVFAIL' });
  };
  await expect(checkDestination('https://x.example/in', { rules: DEPLOYED_RULES, resolve: failing })).rejects.toThrow(
    DestinationLookupFailedError,
  );
  const time = new VirtualTime(Date.parse('2026-12-01T00:00:00Z'));
  const hanging = checkDestination('https://x.example/in', {
    rules: DEPLOYED_RULES,
    resolve: () => new Promise<never>(() => undefined),
    timers: time.asTimers,
  });
  const settled = hanging.then(
    () => 'accepted',
    (error: unknown) => (error instanceof DestinationLookupFailedError ? error.code : 'other'),
  );
  await expect(time.run(settled)).resolves.toBe('SERVICE_UNAVAILABLE');
  expect(time.now() - Date.parse('2026-12-01T00:00:00Z')).toBe(RESOLVE_TIMEOUT_MS);
});
