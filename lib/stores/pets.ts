// The pets table: read by the deprecated GET /pets/{petId}, written by the admin command's
// `pets import` and the local stack's demo data. Ids are int64 and travel as their exact digits.
import { GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isPetStatus, type Pet, type PetLabel } from '../contract/pet';
import type { Deadline } from '../commons/deadline';
import { readOptions } from './call-deadlines';
import { conditionalWrite, type Item } from './conditional';

export class PetsRepository {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly table: string,
  ) {}

  /** Through the plain client, as orders are read: a number's `N` already is its exact digits. */
  async get(id: string, deadline?: Deadline): Promise<Pet | undefined> {
    const { Item } = await this.doc.send(
      new GetItemCommand({ TableName: this.table, Key: { id: { N: String(BigInt(id)) } } }),
      readOptions(deadline),
    );
    return Item ? petFromAttributes(Item) : undefined;
  }

  /** Creates the pet unless its id exists; true when created. Existing pets are never touched. */
  async create(pet: Pet): Promise<boolean> {
    const outcome = await conditionalWrite(() =>
      this.doc.send(
        new PutCommand({
          TableName: this.table,
          Item: petToItem(pet),
          ConditionExpression: 'attribute_not_exists(id)',
        }),
      ),
    );
    return outcome.applied;
  }

  /** Unconditional bulk write, for seeding an empty table (demo data, tests). */
  async putMany(pets: readonly Pet[]): Promise<void> {
    for (let i = 0; i < pets.length; i += 25) {
      let requests = pets.slice(i, i + 25).map((pet) => ({ PutRequest: { Item: petToItem(pet) } }));
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const result = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.table]: requests } }));
        requests = (result.UnprocessedItems?.[this.table] ?? []) as typeof requests;
      }
    }
  }
}

function labelToItem(label: PetLabel): Item {
  return { id: label.id === undefined ? undefined : BigInt(label.id), name: label.name };
}

export function petToItem(pet: Pet): Item {
  return {
    id: BigInt(pet.id),
    name: pet.name,
    category: pet.category === undefined ? undefined : labelToItem(pet.category),
    photoUrls: pet.photoUrls,
    tags: pet.tags?.map(labelToItem),
    status: pet.status,
  };
}

function labelFromAttributes(value: AttributeValue | undefined): PetLabel | undefined {
  const map = value?.M;
  if (map === undefined) return undefined;
  const label: PetLabel = {};
  if (map.id?.N !== undefined) label.id = map.id.N;
  if (map.name?.S !== undefined) label.name = map.name.S;
  return label;
}

export function petFromAttributes(item: Record<string, AttributeValue>): Pet {
  const id = item.id?.N;
  const name = item.name?.S;
  const status = item.status?.S;
  if (id === undefined || name === undefined || (status !== undefined && !isPetStatus(status))) {
    throw new Error('Malformed pet item in the pets table');
  }
  const pet: Pet = {
    id,
    name,
    photoUrls: (item.photoUrls?.L ?? []).flatMap((url) => (url.S === undefined ? [] : [url.S])),
  };
  const category = labelFromAttributes(item.category);
  if (category !== undefined) pet.category = category;
  const tags = item.tags?.L;
  if (tags !== undefined) pet.tags = tags.flatMap((tag) => labelFromAttributes(tag) ?? []);
  if (status !== undefined) pet.status = status;
  return pet;
}
