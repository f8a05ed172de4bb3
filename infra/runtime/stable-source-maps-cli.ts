// `node stable-source-maps-cli.ts <bundle dir> <project root>`: run by bundling's afterBundling
// hook (infra/constructs/stable-bundle.ts), by the node that synthesises, which strips the types.
import { rewriteSourceMaps } from './stable-source-map.ts';

const [bundleDir, projectRoot] = process.argv.slice(2);
if (!bundleDir || !projectRoot) {
  console.error('usage: stable-source-maps-cli.ts <bundle dir> <project root>');
  process.exit(2);
}
rewriteSourceMaps(bundleDir, projectRoot);
