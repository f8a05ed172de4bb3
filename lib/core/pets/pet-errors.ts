// Domain errors of the pets module; the HTTP edge maps them to statuses and codes.

export class InvalidPetIdError extends Error {
  override readonly name = 'InvalidPetIdError';
  constructor() {
    super('petId must be a decimal integer in the int64 range');
  }
}

export class PetNotFoundError extends Error {
  override readonly name = 'PetNotFoundError';
  constructor(readonly petId: string) {
    super(`Pet ${petId} not found`);
  }
}
