import { canonicalInt64 } from '../../contract/order';
import { InvalidOrderIdError } from './order-errors';

/**
 * Parses the `orderId` path parameter: a decimal integer in the int64 range, in canonical form.
 * Anything else (`abc`, `1.5`, `1e3`, `+1`, `007`, 2^63, empty) is refused before any I/O.
 */
export function parseOrderId(raw: string | undefined): string {
  const id = raw === undefined ? undefined : canonicalInt64(raw);
  if (id === undefined) throw new InvalidOrderIdError();
  return id;
}
