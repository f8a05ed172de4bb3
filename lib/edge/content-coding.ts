// Content negotiation for a response body (RFC 9110 §12.5.3): which coding to send, read from
// the request's Accept-Encoding. Pure functions, so every q-value case is tested without a server.
import { CONTENT_CODINGS, type ContentCoding } from '../contract/headers';

export type ChosenCoding = ContentCoding | 'identity';

/** `x-gzip` is the same coding as `gzip` (RFC 9110 §8.4.1.3). */
const ALIASES: Record<string, string> = { 'x-gzip': 'gzip' };

/** Each listed coding with its weight; a malformed or out-of-range q-value makes the entry unusable (weight 0). */
export function parseAcceptEncoding(header: string): Map<string, number> {
  const weights = new Map<string, number>();
  for (const entry of header.split(',')) {
    const [rawName, ...params] = entry.split(';');
    const name = rawName?.trim().toLowerCase() ?? '';
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((part) => part.trim());
      if (key?.toLowerCase() !== 'q') continue;
      q = value !== undefined && /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(value) ? Number(value) : 0;
    }
    const coding = ALIASES[name] ?? name;
    // A coding listed twice keeps its best weight.
    weights.set(coding, Math.max(q, weights.get(coding) ?? 0));
  }
  return weights;
}

/**
 * The coding to answer with: the acceptable supported coding with the highest weight, ties going
 * to the service's preference. No header means identity, as does a header that accepts nothing
 * the service offers: identity is then sent even if refused (`identity;q=0`), because an
 * uncompressed answer serves a client better than a 406 it did not expect. (listOrders alone answers
 * 406, when the store is too large to send uncompressed at all: lib/core/orders/listing-size.ts.)
 */
export function chooseContentCoding(acceptEncoding: string | undefined): ChosenCoding {
  if (acceptEncoding === undefined) return 'identity';
  const weights = parseAcceptEncoding(acceptEncoding);
  const wildcard = weights.get('*');
  let best: { coding: ChosenCoding; q: number } = { coding: 'identity', q: 0 };
  for (const coding of CONTENT_CODINGS) {
    const q = weights.get(coding) ?? wildcard ?? 0;
    if (q > best.q) best = { coding, q };
  }
  if (best.coding === 'identity') return 'identity';
  // Identity wins only when the client lists it with a higher weight than any coding offered.
  return (weights.get('identity') ?? 0) > best.q ? 'identity' : best.coding;
}

/** All values of a request header, by case-insensitive name, joined as one list. */
export function requestHeader(
  event: {
    headers?: Record<string, string | undefined> | null;
    multiValueHeaders?: Record<string, string[] | undefined> | null;
  },
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  const multi = Object.entries(event.multiValueHeaders ?? {}).filter(([key]) => key.toLowerCase() === wanted);
  const values = multi.flatMap(([, v]) => v ?? []);
  if (values.length) return values.join(', ');
  const single = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === wanted);
  return single?.[1];
}
