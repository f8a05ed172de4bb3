// Generates the API's TypeScript types from its OpenAPI document with openapi-typescript, with the
// int64 fields (id, petId, orderId) typed as string: JSON numbers above 2^53 lose digits in a JS
// number, so a client built on these types reads ids losslessly (see openapi-fetch.ts here).
// openapi-typescript has no option or x- extension for this; its `transform` hook does it.
//   node generate-types.mjs <openapi.json file or URL> <output .d.ts>
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString, STRING } from 'openapi-typescript';

const [source, output] = process.argv.slice(2);
if (!source || !output) {
  console.error('usage: node generate-types.mjs <openapi.json file or URL> <output .d.ts>');
  process.exit(2);
}
const url = /^https?:\/\//.test(source) ? new URL(source) : pathToFileURL(source);
const ast = await openapiTS(url, {
  transform: (schema) => (schema.format === 'int64' ? STRING : undefined),
});
writeFileSync(output, astToString(ast));
