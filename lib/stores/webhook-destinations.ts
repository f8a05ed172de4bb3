// Whether events may go to a URL now: its form (lib/core/webhooks/url-rules.ts), then every address
// its host resolves to, through the system resolver (node:dns lookup, all addresses, as a connection
// would resolve it). Called at registration and, by the delivery, before every attempt: a host may
// resolve elsewhere tomorrow. The addresses checked are returned, so a delivery can connect to one
// of them rather than resolve again (a second answer could differ: DNS rebinding).
import { lookup } from 'node:dns/promises';
import { CodedError } from '../contract/errors';
import type { Deadline } from '../commons/deadline';
import { REAL_TIMERS, type Timers } from '../commons/timers';
import { checkAddresses, checkUrlForm, type DestinationRules } from '../core/webhooks/url-rules';
import { quoted, WebhookUrlRefusedError } from '../core/webhooks/webhook-errors';

/** Every address a host name resolves to, IPv4 and IPv6, in the resolver's order. */
export type ResolveAll = (hostname: string) => Promise<readonly string[]>;

/** The system resolver, as a socket's connection resolves a name (getaddrinfo), every address. */
export const systemResolver: ResolveAll = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((found) => found.address);

/** The longest a lookup may take before the check gives up on it (and answers 503). */
export const RESOLVE_TIMEOUT_MS = 2_000;

/** Resolver answers that mean the name has no address: the URL is refused, not retried. */
const NO_ADDRESS_CODES = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN']);

/** The resolver failed, timed out, or the request's time ran out: a 503, which may be retried. */
export class DestinationLookupFailedError extends CodedError {
  override readonly name = 'DestinationLookupFailedError';
  constructor(hostname: string, reason: string) {
    super('SERVICE_UNAVAILABLE', `Could not resolve ${hostname}: ${reason}`);
  }
}

export interface DestinationCheck {
  rules: DestinationRules;
  /** The system resolver unless a test gives its own. */
  resolve?: ResolveAll;
  /** The lookup's timeout runs on these; the deadline's, or the real ones. */
  timers?: Timers;
}

/** A URL events may go to, and the addresses it was checked with. */
export interface CheckedDestination {
  url: string;
  hostname: string;
  addresses: readonly string[];
}

function codeOf(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

/** `resolving`, or a DestinationLookupFailedError once the timeout passes or the request is answered. */
function bounded<T>(resolving: Promise<T>, hostname: string, timers: Timers, deadline?: Deadline): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const fail = (reason: string) => {
      done();
      reject(new DestinationLookupFailedError(hostname, reason));
    };
    const onAbort = () => fail('the request had to be answered');
    const stop = timers.after(RESOLVE_TIMEOUT_MS, () => fail(`no answer within ${RESOLVE_TIMEOUT_MS} ms`));
    const done = () => {
      stop();
      deadline?.signal.removeEventListener('abort', onAbort);
    };
    if (deadline?.signal.aborted) return onAbort();
    deadline?.signal.addEventListener('abort', onAbort, { once: true });
    resolving.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}

/**
 * Checks that events may go to `url` now: its form, then every address its host resolves to. A
 * WebhookUrlRefusedError (or InvalidWebhookEndpointError) says why not; a resolver that fails or
 * is too slow is a DestinationLookupFailedError (503).
 */
export async function checkDestination(
  url: string,
  check: DestinationCheck,
  deadline?: Deadline,
): Promise<CheckedDestination> {
  const form = checkUrlForm(url, check.rules);
  if (form.literal) return { url: form.href, hostname: form.hostname, addresses: [form.hostname] };
  const resolve = check.resolve ?? systemResolver;
  const timers = check.timers ?? deadline?.timers ?? REAL_TIMERS;
  let addresses: readonly string[];
  try {
    addresses = await bounded(resolve(form.hostname), form.hostname, timers, deadline);
  } catch (error) {
    if (error instanceof DestinationLookupFailedError) throw error;
    const code = codeOf(error);
    if (code !== undefined && NO_ADDRESS_CODES.has(code))
      throw new WebhookUrlRefusedError(`url's host ${quoted(form.hostname)} does not resolve to any address`);
    throw new DestinationLookupFailedError(form.hostname, code ?? 'the resolver failed');
  }
  checkAddresses(form, addresses, check.rules);
  return { url: form.href, hostname: form.hostname, addresses };
}
