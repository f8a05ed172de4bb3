// Jest runs the longest test files first when it has their times from an earlier run; on a fresh
// clone it has none and goes by file size instead. test/infra/stack.test.ts is a few import lines
// whose specs are the longest-running file of the suite: sized alone, it would start last and run
// on one worker while the other sits idle. Here a runner's size includes the specs it names
// (test/support/spec-runners.cjs).
const { statSync } = require('node:fs');
const Sequencer = require('@jest/test-sequencer').default;
const { specsNamedBy } = require('./spec-runners.cjs');

function sizeWithSpecs(file) {
  let size = statSync(file).size;
  for (const spec of specsNamedBy(file)) size += statSync(spec).size;
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
