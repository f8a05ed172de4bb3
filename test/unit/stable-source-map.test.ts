// The bundles' source maps name their sources relative to the project root, wherever the synth
// output folder is, so a bundle (its asset hash, the Lambda version's logical id) does not change
// with `cdk synth -o` (aws-cdk issue 28252).
import * as path from 'node:path';
import { rootRelativeSources } from '../../infra/runtime/stable-source-map';

const ROOT = path.join(path.sep, 'work', 'repo');
const SOURCES = ['lib/edge/orders-handlers.ts', 'node_modules/@middy/core/index.js'];

/** The map esbuild writes for a bundle in `bundleDir`: sources relative to that folder. */
function esbuildMap(bundleDir: string): string {
  return JSON.stringify({
    version: 3,
    sources: SOURCES.map((source) => path.relative(bundleDir, path.join(ROOT, source))),
    mappings: 'AAAA',
  });
}

test.each([
  [path.join(ROOT, 'cdk.out', 'bundling-temp-a'), path.join(path.sep, 'tmp', 'elsewhere', 'bundling-temp-b')],
  [path.join(ROOT, 'cdk.out', 'bundling-temp-a'), path.join(ROOT, 'other.out', 'deeper', 'bundling-temp-a')],
])('a bundle built in %s and one built in %s get the same map', (first, second) => {
  expect(esbuildMap(first)).not.toBe(esbuildMap(second));
  const stable = rootRelativeSources(esbuildMap(first), first, ROOT);
  expect(rootRelativeSources(esbuildMap(second), second, ROOT)).toBe(stable);
  expect((JSON.parse(stable) as { sources: string[] }).sources).toEqual(SOURCES);
});

test('the rest of the map is left as esbuild wrote it', () => {
  const dir = path.join(ROOT, 'cdk.out', 'bundling-temp-a');
  const map = JSON.parse(rootRelativeSources(esbuildMap(dir), dir, ROOT)) as Record<string, unknown>;
  expect(map).toMatchObject({ version: 3, mappings: 'AAAA' });
});
