import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiJson } from '../../lib/contract/openapi/document';

/** `npm run openapi`: writes the committed openapi.json; a test fails when it is out of date. */
export const OPENAPI_FILE = 'openapi.json';

writeFileSync(join(process.cwd(), OPENAPI_FILE), openApiJson());
console.log(`Wrote ${OPENAPI_FILE}`);
