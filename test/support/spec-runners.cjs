// Which runner runs which spec. A runner is a `*.test.ts` that names spec files (`*.spec.ts`) of its
// folder by static literals, `require('./x.spec')` inside a describe (test/support/specs.ts) or
// `import './x.spec'` (test/infra/stack.test.ts): literals, so jest's dependency graph sees them
// (--findRelatedTests, -o, --watch). Read by jest.config.cjs (which files are tests), the sequencer
// (a runner's size includes its specs) and test/unit/spec-runners.test.ts (every spec in one runner).
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const TEST_ROOT = path.resolve(__dirname, '..');
// One spec a line: `import './x.spec';` or `runSpec('x', () => require('./x.spec'));` (the describe
// named for the file). A line of another shape is not counted, and the guard test says so.
const SPEC_REFERENCE =
  /^(?:import '\.\/([\w.-]+)\.spec';|runSpec\('([\w.-]+)', \(\) => require\('\.\/\2\.spec'\)\);)$/gm;

/** The spec paths (absolute, with `.ts`) a test file's source names. */
function specsNamedBy(file, source = readFileSync(file, 'utf8')) {
  return [...source.matchAll(SPEC_REFERENCE)].map(([, imported, required]) =>
    path.join(path.dirname(file), `${imported ?? required}.spec.ts`),
  );
}

/** Every file under the test root whose name ends with `suffix`, absolute, sorted. */
function filesEndingWith(suffix, dir = TEST_ROOT) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** Each runner (absolute path) with the specs it names. */
function specRunners() {
  return filesEndingWith('.test.ts')
    .map((runner) => ({ runner, specs: specsNamedBy(runner) }))
    .filter(({ specs }) => specs.length > 0);
}

module.exports = { TEST_ROOT, specsNamedBy, filesEndingWith, specRunners };
