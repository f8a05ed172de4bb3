// What a valid pet is, as an import file gives it: the Petstore's Pet, with int64 ids kept exact
// and unknown fields refused. Every problem is pushed, as for orders (order-record.ts).
import { isPetStatus, PET_STATUSES, type Pet, type PetLabel } from '../../lib/contract/pet';
import { int64, int64FieldProblem, isJsonObject, requiredId, unknownFields } from './json-record';

const PET_FIELDS: readonly (keyof Pet)[] = ['id', 'category', 'name', 'photoUrls', 'tags', 'status'];
const LABEL_FIELDS: readonly (keyof PetLabel)[] = ['id', 'name'];

/** A category or a tag: an object with an optional int64 id and an optional string name. */
function checkLabel(value: unknown, at: string, problems: string[]): PetLabel | undefined {
  if (!isJsonObject(value)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  const before = problems.length;
  const label: PetLabel = {};
  if (Object.hasOwn(value, 'id')) {
    label.id = int64(value.id);
    if (label.id === undefined) problems.push(`${at}.id: ${int64FieldProblem(value.id)}`);
  }
  if (Object.hasOwn(value, 'name')) {
    if (typeof value.name === 'string') label.name = value.name;
    else problems.push(`${at}.name: must be a string`);
  }
  problems.push(...unknownFields(value, LABEL_FIELDS, at));
  return problems.length > before ? undefined : label;
}

/** One value as a pet, pushing what is wrong with it to `problems` (`at` says where it is). */
export function checkPet(value: unknown, at: string, problems: string[]): Pet | undefined {
  if (!isJsonObject(value)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  const before = problems.length;
  const id = requiredId(value, at, problems);
  const { name, photoUrls } = value;
  if (typeof name !== 'string')
    problems.push(`${at}.name: ${Object.hasOwn(value, 'name') ? 'must be a string' : 'is required'}`);
  const urls = Array.isArray(photoUrls) && photoUrls.every((url) => typeof url === 'string') ? photoUrls : undefined;
  if (!urls)
    problems.push(
      `${at}.photoUrls: ${Object.hasOwn(value, 'photoUrls') ? 'must be an array of strings' : 'is required'}`,
    );
  const pet: Partial<Pet> = {};
  if (Object.hasOwn(value, 'category')) pet.category = checkLabel(value.category, `${at}.category`, problems);
  if (Object.hasOwn(value, 'tags')) {
    if (Array.isArray(value.tags)) {
      const tags = value.tags.map((tag, i) => checkLabel(tag, `${at}.tags[${i}]`, problems));
      pet.tags = tags.flatMap((tag) => tag ?? []);
    } else problems.push(`${at}.tags: must be an array`);
  }
  if (Object.hasOwn(value, 'status')) {
    if (isPetStatus(value.status)) pet.status = value.status;
    else problems.push(`${at}.status: must be one of ${PET_STATUSES.join(', ')}`);
  }
  problems.push(...unknownFields(value, PET_FIELDS, at));
  if (problems.length > before || id === undefined || typeof name !== 'string' || !urls) return undefined;
  return { id, name, photoUrls: urls, ...pet };
}
