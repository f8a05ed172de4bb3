import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { headingSlugs, linkProblems, markdownLinks, type FileAccess } from '../support/markdown-links';

const ROOT = path.join(__dirname, '..', '..');
const README_MAX_LINES = 150;

function markdownUnder(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(folder, entry.name);
    if (entry.isDirectory()) return markdownUnder(relative);
    return entry.name.endsWith('.md') ? [relative] : [];
  });
}

const DOCUMENTS = ['README.md', 'CHANGELOG.md', ...markdownUnder('docs')];

test('the documents checked include every page of docs/', () => {
  expect(DOCUMENTS).toEqual(expect.arrayContaining(['docs/README.md', 'docs/api.md', 'docs/troubleshooting.md']));
});

test('every link in README.md, CHANGELOG.md and docs/ resolves inside the repository', () => {
  expect(linkProblems(ROOT, DOCUMENTS)).toEqual([]);
});

test('README.md fits in at most 150 lines', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  expect(readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0)).toBeLessThanOrEqual(README_MAX_LINES);
});

test('docs/README.md lists every page of docs/', () => {
  const index = readFileSync(path.join(ROOT, 'docs', 'README.md'), 'utf8');
  const listed = new Set(markdownLinks(index).map((link) => link.target));
  const pages = markdownUnder('docs')
    .filter((page) => page !== path.join('docs', 'README.md'))
    .map((page) => path.relative('docs', page));
  expect(pages.filter((page) => !listed.has(page))).toEqual([]);
});

/** Every folder and source file directly in `folder`, as repository paths. */
function entriesOf(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || /\.(ts|cjs|sh)$/.test(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
}

describe('docs/design.md matches the tree', () => {
  const design = readFileSync(path.join(ROOT, 'docs', 'design.md'), 'utf8');
  const named = new Set([...design.matchAll(/`([A-Za-z0-9_./-]+)`/g)].map((match) => match[1]));

  test('every path with a folder it names exists', () => {
    const paths = [...named].filter((name) => /^[a-z.]+\/.*\.[a-z]+$/.test(name ?? ''));
    expect(paths.length).toBeGreaterThan(10);
    expect(paths.filter((name) => !existsSync(path.join(ROOT, name ?? '')))).toEqual([]);
  });

  test.each(['functions', 'infra', 'lib/core', 'tools'])('it names every entry of %s/', (folder) => {
    expect(entriesOf(folder).filter((entry) => !named.has(entry) && !named.has(`${folder}/${entry}`))).toEqual([]);
  });
});

describe('the link checker', () => {
  const ROOT_IN_MEMORY = '/repo';
  const tree: Record<string, string> = {
    '/repo/README.md': [
      '# Store Orders API',
      '[ok](docs/a.md#a-heading-with-code-and-punctuation) [folder](docs) [site](https://example.org/x)',
      '[missing](docs/nope.md) [bad anchor](docs/a.md#nope) [escape](../shared/spec.md)',
      '[absolute](/docs/a.md) [file](file:///etc/passwd) [same file](#store-orders-api) [wrapped',
      'text](#nowhere)',
      '```md',
      '[in a code block](nowhere.md)',
      '```',
      'and `[in a code span](nowhere.md)`',
      '',
      'A [link by reference][gone].',
      '',
      '[gone]: docs/gone.md',
    ].join('\n'),
    '/repo/docs/a.md': '# A heading, with `code` and punctuation!\n\n## Again\n\n## Again\n',
  };
  const access: FileAccess = {
    read: (file) => {
      const text = tree[file];
      if (text === undefined) throw new Error(`no fixture ${file}`);
      return text;
    },
    exists: (file) => file in tree || Object.keys(tree).some((known) => known.startsWith(`${file}/`)),
  };

  test('reports each broken, escaping or non-web link with its line, and nothing in code', () => {
    expect(linkProblems(ROOT_IN_MEMORY, ['README.md'], access)).toEqual([
      'README.md:3: docs/nope.md: no such file',
      'README.md:3: docs/a.md#nope: no heading with the anchor #nope',
      'README.md:3: ../shared/spec.md: points outside the repository',
      'README.md:4: /docs/a.md: write links relative to the file, not from /',
      'README.md:4: file:///etc/passwd: only http(s) links may leave the repository',
      'README.md:4: #nowhere: no heading with the anchor #nowhere',
      'README.md:11: docs/gone.md: no such file',
    ]);
  });

  test('makes anchors as GitHub does, numbering repeated headings', () => {
    expect([...headingSlugs(tree['/repo/docs/a.md'] ?? '')]).toEqual([
      'a-heading-with-code-and-punctuation',
      'again',
      'again-1',
    ]);
    expect([...headingSlugs("## Stage configuration (`infra/stages.ts`)\n## listOrders' memory")]).toEqual([
      'stage-configuration-infrastagests',
      'listorders-memory',
    ]);
  });
});
