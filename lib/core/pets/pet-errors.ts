// Domain errors of the pets module, each with the code it is answered with; the HTTP edge maps the
// code to a status.
import { CodedError } from '../../contract/errors';

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
