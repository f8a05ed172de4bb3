// Every spec file runs in a full run: a runner (test/support/specs.ts) names it, once, by a line
// test/support/spec-runners.cjs reads, and every spec a runner names exists. Without this a new
// spec left out of its runner's list would never run under `npm test`.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { TEST_ROOT, filesEndingWith, specRunners, specsNamedBy } from '../support/spec-runners.cjs';

const relative = (file: string) => path.relative(TEST_ROOT, file);
const runners = specRunners();
const named = runners.flatMap(({ specs }) => specs);

test('every spec file is named by exactly one runner', () => {
  const times = (spec: string) => named.filter((name) => name === spec).length;
  const notOnce = filesEndingWith('.spec.ts').filter((spec) => times(spec) !== 1);
  expect(notOnce.map((spec) => `${relative(spec)}: in ${times(spec)} runners`)).toEqual([]);
});

test('every spec a runner names exists', () => {
  const missing = runners.flatMap(({ runner, specs }) =>
    specs.filter((spec) => !existsSync(spec)).map((spec) => `${relative(runner)} names ${relative(spec)}`),
  );
  expect(missing).toEqual([]);
});

test("every require or import of a spec in a test file is one the runners' reader counts", () => {
  // A spec loaded another way (a computed path, double quotes, two to a line) would run but stay
  // invisible to the mode switch in jest.config.cjs and to the checks above.
  const loadsOfSpecs = /\b(?:require|import)\b[^\n]*[.]spec\b/g;
  const uncounted = filesEndingWith('.test.ts').filter((file) => {
    const source = readFileSync(file, 'utf8');
    return (source.match(loadsOfSpecs) ?? []).length !== specsNamedBy(file, source).length;
  });
  expect(uncounted.map(relative)).toEqual([]);
});
