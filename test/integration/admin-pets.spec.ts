// `pets import`: the orders import's machinery (check everything first, skip existing ids) on pets.
import type { PetsRepository } from '../../lib/stores/pets';
import { PET_STATUSES } from '../../lib/contract/pet';
import { importFixture, type Admin } from '../support/admin-harness';

const imports = importFixture('pets');
let repo: PetsRepository;
beforeAll(() => {
  repo = imports.tables.stores().pets;
});
const admin: Admin = (...argv) => imports.admin(...argv);
const file = (json: string) => imports.file(json);
const petCount = () => imports.count();

test('imports pets with every digit of their int64 ids; a second run skips them', async () => {
  const path = file(`[
    {"id": 9223372036854775807, "name": "Rex", "photoUrls": ["https://example.com/rex.jpg"],
     "category": {"id": 9007199254740993, "name": "Dogs"}, "tags": [{"id": 1, "name": "friendly"}, {"name": "big"}],
     "status": "available"},
    {"id": 9007199254740993, "name": "Misty", "photoUrls": []}
  ]`);
  const run = await admin('pets', 'import', path);
  expect(run.code).toBe(0);
  expect(run.stdout).toContain('2 created, 0 skipped');
  expect(await repo.get('9223372036854775807')).toEqual({
    id: '9223372036854775807',
    name: 'Rex',
    photoUrls: ['https://example.com/rex.jpg'],
    category: { id: '9007199254740993', name: 'Dogs' },
    tags: [{ id: '1', name: 'friendly' }, { name: 'big' }],
    status: 'available',
  });
  expect(await repo.get('9007199254740993')).toEqual({ id: '9007199254740993', name: 'Misty', photoUrls: [] });

  const again = await admin('pets', 'import', path);
  expect(again.code).toBe(0);
  expect(again.stdout).toContain('0 created, 2 skipped');
});

test('an invalid file lists every problem, each at its pet, and writes nothing', async () => {
  const before = await petCount();
  const run = await admin(
    'pets',
    'import',
    file(`[
      {"id": 1, "name": "ok", "photoUrls": []},
      {"id": 9223372036854775808, "photoUrls": "x", "status": "lost", "colour": "red"},
      {"id": 3, "name": "Tagged", "photoUrls": [], "tags": [{"id": "7"}], "category": 5},
      {"id": 1, "name": "again", "photoUrls": []}
    ]`),
  );
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('pets[1].id: ');
  expect(run.stderr).toContain('pets[1].name: is required');
  expect(run.stderr).toContain('pets[1].photoUrls: must be an array of strings');
  expect(run.stderr).toContain(`pets[1].status: must be one of ${PET_STATUSES.join(', ')}`);
  expect(run.stderr).toContain('pets[1].colour: unknown field');
  expect(run.stderr).toContain('pets[2].tags[0].id: ');
  expect(run.stderr).toContain('pets[2].category: must be an object');
  expect(run.stderr).toContain('pets[3].id: 1 is also the id of pets[0]');
  expect(run.stderr).toContain('no pet was written');
  expect(await petCount()).toBe(before);
});

test('a file that is not an array of pets says so', async () => {
  const run = await admin('pets', 'import', file('{"id": 1}'));
  expect(run.code).toBe(1);
  expect(run.stderr).toContain('must be a JSON array of pets');
});
