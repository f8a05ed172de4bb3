import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { API_VERSION } from '../../lib/contract/routes';

test('CHANGELOG.md has an entry for the interface version the document declares', () => {
  const changelog = readFileSync(join(process.cwd(), 'CHANGELOG.md'), 'utf8');
  expect(changelog).toMatch(new RegExp(`^## \\[${API_VERSION.replace(/\./g, '\\.')}\\] - \\d{4}-\\d{2}-\\d{2}$`, 'm'));
});
