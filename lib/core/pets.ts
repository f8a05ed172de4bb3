// The pets rules: the petId path parameter, parsed before any I/O, and the domain errors, each with
// the code it is answered with (the HTTP edge maps the code to a status).
import { CodedError } from '../contract/errors';
import { canonicalInt64 } from '../contract/order';

export class InvalidPetIdError extends CodedError {
  override readonly name = 'InvalidPetIdError';
  constructor() {
    super('INVALID_PET_ID', 'petId must be a decimal integer in the int64 range');
  }
}

export class PetNotFoundError extends CodedError {
  override readonly name = 'PetNotFoundError';
  constructor(readonly petId: string) {
    super('PET_NOT_FOUND', `Pet ${petId} not found`);
  }
}

/** Parses the `petId` path parameter exactly as `orderId` is parsed (orders/order-id.ts). */
export function parsePetId(raw: string | undefined): string {
  const id = raw === undefined ? undefined : canonicalInt64(raw);
  if (id === undefined) throw new InvalidPetIdError();
  return id;
}
