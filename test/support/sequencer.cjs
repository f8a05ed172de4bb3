// Jest runs the longest test files first when it has their times from an earlier run; on a fresh
// clone it has none and goes by file size instead. test/infra/stack.test.ts is a few import lines
// whose specs are the longest-running file of the suite: sized alone, it would start last and run
// on one worker while the other sits idle. Here a file's size includes the specs it imports, or
// runs (test/support/specs.ts).
const { readFileSync, statSync } = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const SPEC_IMPORT = /^import '(\.\/[\w.-]+\.spec)';$/gm;
const RUN_SPECS = /runSpecs\(__dirname, \[([^\]]*)\]\)/;

function specsOf(source) {
  const imported = [...source.matchAll(SPEC_IMPORT)].map(([, spec]) => spec);
  const run = RUN_SPECS.exec(source)?.[1] ?? '';
  return imported.concat([...run.matchAll(/'([\w.-]+)'/g)].map(([, name]) => `./${name}.spec`));
}

function sizeWithSpecs(file) {
  let size = statSync(file).size;
  for (const spec of specsOf(readFileSync(file, 'utf8')))
    size += statSync(path.resolve(path.dirname(file), `${spec}.ts`)).size;
  return size;
}

class SpecAwareSequencer extends Sequencer {
  sort(tests) {
    const timed = tests.filter((test) => this.time(test) != null || this.hasFailed(test));
    if (timed.length > 0) return super.sort(tests);
    return [...tests]
      .map((test) => ({ test, size: sizeWithSpecs(test.path) }))
      .sort((a, b) => b.size - a.size)
      .map(({ test }) => test);
  }
}

module.exports = SpecAwareSequencer;
