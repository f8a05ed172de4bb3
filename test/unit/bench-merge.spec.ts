// `npm run bench -- --suite <name> --merge`: the named suites' figures replace theirs in the full
// run, every other suite's stay, and the merged run is recorded beside them.
import type { BenchResults, SuiteRun } from '../../bench/report';
import { mergeSuites } from '../../bench/merge';
import results from '../../bench/results.json';

const full = results as unknown as BenchResults;
const run: SuiteRun = {
  startedAt: '2026-11-26T01:00:00.000Z',
  durationS: 60,
  machine: { cpus: 2, cpu: 'test', memoryGiB: 1, node: 'v22', os: 'test' },
  loadAverage: { start: 1 },
  options: ['--sync-1m'],
};

test('the merged suite is replaced and recorded; the others and the full run are kept', () => {
  const names = Object.keys(full.suites) as (keyof BenchResults['suites'])[];
  const [merged, ...others] = names;
  if (merged === undefined) throw new Error('bench/results.json has no suites');
  const figures = { [merged]: { replaced: true } } as unknown as BenchResults['suites'];
  const result = mergeSuites(full, figures, run);
  expect(result.suites[merged]).toEqual({ replaced: true });
  for (const name of others) expect(result.suites[name]).toBe(full.suites[name]);
  expect(result.suiteRuns?.[merged]).toEqual(run);
  expect(result.startedAt).toBe(full.startedAt);
  expect(result.machine).toEqual(full.machine);
});

test('a quick run is never merged into', () => {
  expect(() => mergeSuites({ ...full, mode: 'quick' }, {}, run)).toThrow('merge into a full run only');
});
