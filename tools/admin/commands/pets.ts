import { defineCommand, type CommandContext } from '../command';
import { PET_IMPORT } from '../import-file';
import { importFile } from '../import-run';

function importPets(file: string, context: CommandContext): Promise<void> {
  return importFile(PET_IMPORT, file, (pet) => context.target.pets.create(pet), context);
}

export const petsImport = defineCommand({
  name: 'pets import',
  options: {},
  arguments: ['<file.json>'],
  help: [
    'Creates the pets of a JSON array, for the deprecated GET /pets/{petId}, e.g. [{"id": 101,',
    '"name": "Rex", "photoUrls": [], "category": {"id": 1, "name": "Dogs"}, "tags": [{"id": 1,',
    '"name": "friendly"}], "status": "available"}]. id (int64), name and photoUrls are required;',
    'status is available|pending|sold. Checked, written and resumed as orders import is: nothing',
    'is written if any element is invalid, and pets whose id exists already are skipped.',
  ],
  parse: ({ args: [file = ''] }) => file,
  run: importPets,
});
