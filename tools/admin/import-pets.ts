// Checks the pets of a `pets import` file, element by element, as import-file.ts checks orders:
// the Petstore's Pet, with int64 ids kept exact and unknown fields refused.
import { isLosslessNumber } from 'lossless-json';
import { isPetStatus, PET_STATUSES, type Pet, type PetLabel } from '../../lib/contract/pet';
import { shownWords } from '../shared/errors';
import { int64, int64FieldProblem, type ImportKind } from './import-file';
import type { Element } from './import-stream';

const PET_FIELDS: readonly (keyof Pet)[] = ['id', 'category', 'name', 'photoUrls', 'tags', 'status'];
const LABEL_FIELDS: readonly (keyof PetLabel)[] = ['id', 'name'];

function isObject(value: unknown): value is Record<string, unknown> {
  // A number is parsed into a LosslessNumber object; its fields are the library's, not the file's.
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isLosslessNumber(value);
}

function unknownFields(fields: Record<string, unknown>, allowed: readonly string[], at: string): string[] {
  return Object.keys(fields)
    .filter((key) => !allowed.includes(key))
    .map((key) => `${at}.${key}: unknown field (allowed: ${allowed.join(', ')})`);
}

/** A category or a tag: an object with an optional int64 id and an optional string name. */
function checkLabel(value: unknown, at: string, problems: string[]): PetLabel | undefined {
  if (!isObject(value)) {
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

function checkPet(value: unknown, at: string, problems: string[]): Pet | undefined {
  if (!isObject(value)) {
    problems.push(`${at}: must be an object`);
    return undefined;
  }
  const before = problems.length;
  const id = int64(value.id);
  if (!Object.hasOwn(value, 'id')) problems.push(`${at}.id: is required`);
  else if (id === undefined) problems.push(`${at}.id: ${int64FieldProblem(value.id)}`);
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

/** An element as a pet, or what is wrong with it (echoed input shortened). */
export function elementPet(element: Element): { record?: Pet; id?: string; problems: string[] } {
  const at = `pets[${element.index}]`;
  if (!('value' in element)) return { problems: [`${at}: ${element.problem}`] };
  const problems: string[] = [];
  const pet = checkPet(element.value, at, problems);
  const id = int64((element.value as { id?: unknown } | null)?.id);
  return { ...(pet ? { record: pet } : {}), ...(id !== undefined ? { id } : {}), problems: problems.map(shownWords) };
}

/** `pets import`'s records. */
export const PET_IMPORT: ImportKind<Pet> = { noun: { one: 'pet', many: 'pets' }, check: elementPet };
