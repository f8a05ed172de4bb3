// esbuild writes a source map's `sources` relative to the bundle's directory, which CDK puts inside
// the synth output folder (cdk.out, or wherever -o points). The map is part of the asset, so its
// hash, and with it every Lambda version's logical id, changed with that folder: a deploy from
// another folder published new versions, and ran canaries, with no code change (aws-cdk issue
// 28252). Rewritten relative to the project root, the bundle is the same wherever it is built.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

/** The map with each source relative to `projectRoot` (POSIX separators), as if the bundle sat there. */
export function rootRelativeSources(mapJson: string, mapDir: string, projectRoot: string): string {
  const map = JSON.parse(mapJson) as { sources?: unknown; sourceRoot?: unknown };
  if (!Array.isArray(map.sources)) return mapJson;
  const sourceRoot = typeof map.sourceRoot === 'string' ? map.sourceRoot : '';
  map.sources = map.sources.map((source: unknown) =>
    typeof source === 'string'
      ? path
          .relative(projectRoot, path.resolve(mapDir, sourceRoot, source))
          .split(path.sep)
          .join('/')
      : source,
  );
  delete map.sourceRoot;
  return JSON.stringify(map);
}

/** Rewrites every `.map` file directly in `bundleDir`. */
export function rewriteSourceMaps(bundleDir: string, projectRoot: string): void {
  for (const name of readdirSync(bundleDir).filter((n) => n.endsWith('.map'))) {
    const file = path.join(bundleDir, name);
    writeFileSync(file, rootRelativeSources(readFileSync(file, 'utf8'), bundleDir, projectRoot));
  }
}
