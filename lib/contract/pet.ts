// The Pet record of the public Petstore, served by the deprecated GET /pets/{petId}. Its ids are
// int64 and kept as canonical decimal strings, as order ids are, so no digit is ever lost.

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export type PetStatus = (typeof PET_STATUSES)[number];

/** A category or a tag: the Petstore gives both the same shape. */
export interface PetLabel {
  /** int64, canonical decimal digits. */
  id?: string;
  name?: string;
}

export interface Pet {
  /** int64, canonical decimal digits. */
  id: string;
  name: string;
  category?: PetLabel;
  photoUrls: string[];
  tags?: PetLabel[];
  status?: PetStatus;
}

export function isPetStatus(value: unknown): value is PetStatus {
  return typeof value === 'string' && (PET_STATUSES as readonly string[]).includes(value);
}

function labelJson(label: PetLabel): string {
  const fields: string[] = [];
  if (label.id !== undefined) fields.push(`"id":${label.id}`);
  if (label.name !== undefined) fields.push(`"name":${JSON.stringify(label.name)}`);
  return `{${fields.join(',')}}`;
}

/** One pet as JSON text, ids as raw digits (as orderJson writes orders). Absent fields are left out. */
export function petJson(pet: Pet): string {
  let json = `{"id":${pet.id}`;
  if (pet.category !== undefined) json += `,"category":${labelJson(pet.category)}`;
  json += `,"name":${JSON.stringify(pet.name)},"photoUrls":${JSON.stringify(pet.photoUrls)}`;
  if (pet.tags !== undefined) json += `,"tags":[${pet.tags.map(labelJson).join(',')}]`;
  if (pet.status !== undefined) json += `,"status":"${pet.status}"`;
  return `${json}}`;
}
