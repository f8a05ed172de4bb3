import * as path from 'node:path';
import { build } from 'esbuild';
import { BUNDLING } from '../../infra/functions';

/** Node flags the deployed functions run with: source maps on when the bundles carry them. */
export const DEPLOYED_NODE_FLAGS: readonly string[] = BUNDLING.sourceMap ? ['--enable-source-maps'] : [];

/** One entry bundled with the deployed functions' esbuild settings, into `<outDir>/<name>/index.mjs`. */
export async function bundle(entry: string, outDir: string, name: string): Promise<string> {
  const outfile = path.join(outDir, name, 'index.mjs');
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    target: BUNDLING.target,
    format: BUNDLING.format,
    platform: BUNDLING.platform,
    mainFields: [...BUNDLING.mainFields],
    banner: { js: BUNDLING.banner },
    minify: BUNDLING.minify,
    sourcemap: BUNDLING.sourceMap,
    external: [...BUNDLING.external],
    logLevel: 'warning',
  });
  return outfile;
}
