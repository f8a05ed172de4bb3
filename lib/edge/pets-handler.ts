// getPetById, the deprecated GET /pets/{petId}: one GetItem on the pets table. apiHandler adds
// the route's Deprecation and Sunset headers to every answer, errors included.
import { apiHandler, type ApiHandlerDeps } from './api-handler';
import { routeByOperation } from '../contract/routes';
import { petJson } from '../contract/pet';
import { parsePetId, PetNotFoundError } from '../core/pets';
import type { PetsRepository } from '../stores/pets';

export interface PetsHandlerDeps extends ApiHandlerDeps {
  pets: Pick<PetsRepository, 'get'>;
}

export function makeGetPetHandler(deps: PetsHandlerDeps) {
  return apiHandler(routeByOperation('getPetById'), deps, async (event, _caller, _context, deadline) => {
    const id = parsePetId(event.pathParameters?.petId);
    const pet = await deps.pets.get(id, deadline);
    if (pet === undefined) throw new PetNotFoundError(id);
    return { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: petJson(pet) };
  });
}
