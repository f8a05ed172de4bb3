import { join } from 'node:path';
import { lintOpenApi } from '../support/redocly';

test('openapi.json and openapi-v2.json pass the Redocly linter (recommended-strict), in one run', () => {
  const { status, output } = lintOpenApi(...['openapi.json', 'openapi-v2.json'].map((f) => join(process.cwd(), f)));
  expect(output.match(/validated in/g)).toHaveLength(2);
  expect(output).toContain('Your API descriptions are valid');
  expect(status).toBe(0);
});
