// `npm run bench -- --suite <name> --merge`: the figures of the suites a run measured, put into
// the full run of bench/results.json in place of theirs, the other suites' left as they were, and
// each merged suite's run recorded beside it so the table says when and where its figures come from.

import type { BenchResults, SuiteRun } from './report';

export function mergeSuites(into: BenchResults, suites: BenchResults['suites'], run: SuiteRun): BenchResults {
  if (into.mode !== 'full') throw new Error(`bench/results.json holds a ${into.mode} run: merge into a full run only`);
  const runs = Object.fromEntries(Object.keys(suites).map((name) => [name, run]));
  return { ...into, suites: { ...into.suites, ...suites }, suiteRuns: { ...into.suiteRuns, ...runs } };
}
