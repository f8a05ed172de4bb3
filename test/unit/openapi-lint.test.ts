import { join } from 'node:path';
import { lintOpenApi } from '../support/redocly';

test('openapi.json passes the Redocly linter (recommended-strict)', () => {
  const { status, output } = lintOpenApi(join(process.cwd(), 'openapi.json'));
  expect(output).toContain('Your API description is valid');
  expect(status).toBe(0);
});
