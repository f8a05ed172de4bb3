import { canonicalInt64 } from '../../contract/order';
import { InvalidPetIdError } from './pet-errors';

/** Parses the `petId` path parameter exactly as `orderId` is parsed (order-id.ts), before any I/O. */
export function parsePetId(raw: string | undefined): string {
  const id = raw === undefined ? undefined : canonicalInt64(raw);
  if (id === undefined) throw new InvalidPetIdError();
  return id;
}
