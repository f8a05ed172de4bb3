import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { blockOf, DOC_BLOCKS, type BenchResults } from '../../bench/report';
import results from '../../bench/results.json';
import { REPO_ROOT } from '../../infra/functions';
import { MEASURED } from '../../infra/list-budget';
import { measuredFigures, type MeasuredRun } from '../../infra/measured';

// Typed, so a results.json that no longer matches what the bench writes fails the type check.
const latest: BenchResults = results;

test.each(DOC_BLOCKS)('$file: the generated "$name" block shows bench/results.json', ({ file, name, render }) => {
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8');
  // A hand edit, or a results.json changed without `npm run bench -- --docs`, fails here.
  expect(blockOf(text, name)).toBe(`${render(latest)}\n`);
});

test('a docs page without the markers is refused, not silently left stale', () => {
  expect(() => blockOf('# Benchmarks\n\n| a | b |\n', 'figures')).toThrow('<!-- bench:figures -->');
});

test("MEASURED is the latest full run's largest listing as deployed, read from bench/results.json", () => {
  const file = JSON.parse(readFileSync(path.join(REPO_ROOT, 'bench', 'results.json'), 'utf8')) as BenchResults;
  const listings = file.suites['listOrders at scale']?.handlers ?? [];
  const largest = Math.max(...listings.map((h) => h.orders));
  const figures = (coding: string) => {
    const h = listings.find((l) => l.orders === largest && l.coding === coding && l.deployed);
    return h && { bytesPerOrder: h.bytes / h.orders, ordersPerCpuSecond: h.orders / (h.cpuMs / 1000) };
  };
  expect(file.mode).toBe('full');
  expect(MEASURED.plain).toEqual(figures('identity'));
  expect(MEASURED.compressed).toEqual(figures('gzip'));
  expect(MEASURED.source).toContain(file.startedAt.slice(0, 10));
  expect(MEASURED.source).toContain(`${largest.toLocaleString('en-US')} orders, as deployed`);
});

describe('measuredFigures', () => {
  const listing = { coding: 'gzip', deployed: true, nodeFlags: ['--optimize-for-size'], valid: true };
  const run = (handlers: NonNullable<MeasuredRun['suites']['listOrders at scale']>['handlers'], mode = 'full') => ({
    mode,
    startedAt: '2026-11-22T16:01:48.852Z',
    machine: { cpus: 2, cpu: 'AMD EPYC' },
    loadAverage: { start: 1.8 },
    suites: { 'listOrders at scale': { handlers } },
  });
  const both = (orders: number, cpuMs: number, more: Partial<typeof listing> = {}) => [
    { ...listing, ...more, coding: 'identity', orders, bytes: orders * 130, cpuMs },
    { ...listing, ...more, orders, bytes: orders * 30, cpuMs },
  ];

  test('takes the largest listing started as deployed, not a faster one without its flags', () => {
    const figures = measuredFigures(
      run([...both(1_000, 10), ...both(4_000, 100), ...both(4_000, 50, { deployed: false })]),
    );
    expect(figures.plain).toEqual({ bytesPerOrder: 130, ordersPerCpuSecond: 40_000 });
    expect(figures.compressed).toEqual({ bytesPerOrder: 30, ordersPerCpuSecond: 40_000 });
    expect(figures.source).toBe(
      'bench "listOrders at scale", 4,000 orders, as deployed (--optimize-for-size), 2026-11-22, 2 vCPU AMD EPYC, load average 1.8',
    );
  });

  test("refuses a quick run's small listings, and a run without a valid listing of each coding", () => {
    expect(() => measuredFigures(run(both(4_000, 100), 'quick'))).toThrow('a quick run');
    expect(() => measuredFigures(run(both(4_000, 100, { valid: false })))).toThrow('no valid identity listing');
    expect(() => measuredFigures(run(both(4_000, 100).slice(0, 1)))).toThrow('no valid gzip listing');
  });
});
