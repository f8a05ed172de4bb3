// Where events may go (server-side request forgery): a URL's form, and each address its host
// resolves to. Pure: the resolving is lib/stores/webhook-destinations.ts's, at registration and
// before every delivery. Ranges are Node's net.BlockList (which also matches an IPv4-mapped IPv6
// address, ::ffff:a.b.c.d, against the IPv4 ranges); the WHATWG URL parser has already turned
// numeric, octal and hex IPv4 spellings (2130706433, 0177.1, 0x7f.1) into dotted decimal.
import { BlockList, isIP } from 'node:net';
import { WEBHOOK_LIMITS } from '../../contract/webhooks';
import { InvalidWebhookEndpointError, quoted, WebhookUrlRefusedError } from './webhook-errors';

export interface DestinationRules {
  /**
   * The local stack's allowance: loopback addresses (127.0.0.0/8, ::1) are accepted, and `http` to
   * them. Deployed, never: a loopback URL would reach the function's own host.
   */
  allowLoopback: boolean;
}

/** Deployed: no loopback, https only. */
export const DEPLOYED_RULES: DestinationRules = { allowLoopback: false };
/** The local stack's (and the admin command's on it): loopback allowed, http to it included. */
export const LOCAL_STACK_RULES: DestinationRules = { allowLoopback: true };

type Family = 'ipv4' | 'ipv6';
type Range = readonly [address: string, prefix: number, family: Family];

/** One kind of address events may not go to: its name for messages, and its ranges. */
interface RefusedKind {
  name: string;
  list: BlockList;
  loopback?: true;
}

function kind(name: string, ranges: readonly Range[], loopback?: true): RefusedKind {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return { name, list, ...(loopback ? { loopback } : {}) };
}

/**
 * Checked in this order, so the most telling name wins (the metadata address is also link-local).
 * IANA's special-purpose registries (RFC 6890 and successors) name them; none is a public host.
 */
const LOOPBACK = kind(
  'a loopback address',
  [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  true,
);

const REFUSED: readonly RefusedKind[] = [
  kind('the cloud metadata address', [
    ['169.254.169.254', 32, 'ipv4'],
    ['fd00:ec2::254', 128, 'ipv6'],
  ]),
  LOOPBACK,
  kind('the unspecified address', [
    ['0.0.0.0', 8, 'ipv4'],
    ['::', 128, 'ipv6'],
  ]),
  kind('a private address', [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['fc00::', 7, 'ipv6'],
  ]),
  kind('a shared (carrier-grade NAT) address', [['100.64.0.0', 10, 'ipv4']]),
  kind('a link-local address', [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
    ['fec0::', 10, 'ipv6'],
  ]),
  kind('a multicast or broadcast address', [
    ['224.0.0.0', 4, 'ipv4'],
    ['255.255.255.255', 32, 'ipv4'],
    ['ff00::', 8, 'ipv6'],
  ]),
  kind('a reserved address', [
    ['192.0.0.0', 24, 'ipv4'],
    ['192.0.2.0', 24, 'ipv4'],
    ['198.18.0.0', 15, 'ipv4'],
    ['198.51.100.0', 24, 'ipv4'],
    ['203.0.113.0', 24, 'ipv4'],
    ['240.0.0.0', 4, 'ipv4'],
    // IPv4-compatible (deprecated), NAT64 and 6to4 forms embed an IPv4 address that may be any of the above.
    ['::', 96, 'ipv6'],
    ['64:ff9b::', 96, 'ipv6'],
    ['64:ff9b:1::', 48, 'ipv6'],
    ['2002::', 16, 'ipv6'],
    ['100::', 64, 'ipv6'],
    ['2001:db8::', 32, 'ipv6'],
  ]),
];

/** An address without the brackets a URL's host puts around IPv6. */
function bare(address: string): string {
  return address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
}

/** Why events may not go to `address`, or undefined when they may. Not an IP address at all: refused. */
export function addressRefusal(address: string, rules: DestinationRules): string | undefined {
  const ip = bare(address);
  const version = isIP(ip);
  if (version === 0) return `${quoted(ip)} is not an IP address`;
  const family: Family = version === 4 ? 'ipv4' : 'ipv6';
  const refused = REFUSED.find((candidate) => candidate.list.check(ip, family));
  if (!refused || (refused.loopback && rules.allowLoopback)) return undefined;
  return `${ip} is ${refused.name}`;
}

/** Whether `address` is loopback (the local stack's `http` allowance needs every address to be). */
export function isLoopback(address: string): boolean {
  const ip = bare(address);
  const version = isIP(ip);
  return version !== 0 && LOOPBACK.list.check(ip, version === 4 ? 'ipv4' : 'ipv6');
}

/** A URL whose form is acceptable: its host still has to resolve to acceptable addresses. */
export interface CheckedUrl {
  /** As it is stored and delivered to: the WHATWG serialisation. */
  href: string;
  /** The host to resolve, without IPv6 brackets. */
  hostname: string;
  /** The host is an IP address itself: nothing to resolve. */
  literal: boolean;
  protocol: 'https:' | 'http:';
}

/**
 * Checks a URL's form: a malformed or too long one is an InvalidWebhookEndpointError; a scheme, user,
 * password or fragment it may not have, a WebhookUrlRefusedError. A literal address is checked at once.
 */
export function checkUrlForm(text: string, rules: DestinationRules): CheckedUrl {
  const max = WEBHOOK_LIMITS.urlMaxLength;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidWebhookEndpointError(
      `url ${quoted(text)} is not an absolute URL such as https://example.com/hooks`,
    );
  }
  if (url.href.length > max) throw new InvalidWebhookEndpointError(`url is longer than ${max} characters`);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && rules.allowLoopback))
    throw new WebhookUrlRefusedError(
      rules.allowLoopback
        ? `url must be https (or http to a loopback address, on the local stack), not ${url.protocol.slice(0, -1)}`
        : `url must be https, not ${quoted(url.protocol.slice(0, -1))}`,
    );
  if (url.username !== '' || url.password !== '')
    throw new WebhookUrlRefusedError('url must not carry a user name or password: sign-in goes by the signature');
  if (url.hash !== '') throw new WebhookUrlRefusedError('url must not have a fragment (#...): it is never sent');
  const hostname = bare(url.hostname);
  if (hostname === '') throw new WebhookUrlRefusedError('url has no host');
  const literal = isIP(hostname) !== 0;
  const checked: CheckedUrl = { href: url.href, hostname, literal, protocol: url.protocol as CheckedUrl['protocol'] };
  if (literal) checkAddresses(checked, [hostname], rules);
  return checked;
}

/**
 * Checks every address the host resolved to: one refused address refuses the URL (a resolver may
 * hand out any of them), and `http` needs every one to be loopback.
 */
export function checkAddresses(url: CheckedUrl, addresses: readonly string[], rules: DestinationRules): void {
  if (addresses.length === 0) throw new WebhookUrlRefusedError(`url's host ${quoted(url.hostname)} has no address`);
  const shown = url.literal ? '' : ` (${quoted(url.hostname)} resolves to it)`;
  for (const address of addresses) {
    const refusal = addressRefusal(address, rules);
    if (refusal) throw new WebhookUrlRefusedError(`url is refused: ${refusal}${shown}`);
  }
  if (url.protocol === 'http:' && !addresses.every(isLoopback))
    throw new WebhookUrlRefusedError(`url must be https: http goes only to a loopback address, on the local stack`);
}
