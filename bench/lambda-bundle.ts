import * as path from 'node:path';
import { build, type Metafile } from 'esbuild';

/**
 * The banner of infra/constructs/service-function.ts, copied rather than imported: that module
 * pulls in aws-cdk-lib, which the bench has no use for. bench/bundles.ts checks that the construct
 * still carries this exact text, so a drift fails loudly instead of skewing the sizes.
 */
export const REQUIRE_SHIM =
  "import { createRequire as __storeOrdersCreateRequire } from 'node:module';" +
  'const require = __storeOrdersCreateRequire(import.meta.url);';

export interface BuiltBundle {
  file: string;
  metafile: Metafile;
}

/**
 * One entry bundled as NodejsFunction bundles it with the construct's settings (CDK passes them
 * to esbuild as --bundle --target=node22 --platform=node --format=esm --minify --sourcemap
 * --main-fields=module,main --banner:js=...; no externals because the SDK is bundled).
 */
export async function bundleLikeLambda(entry: string, outDir: string, name: string): Promise<BuiltBundle> {
  const file = path.join(outDir, name, 'index.mjs');
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    target: 'node22',
    platform: 'node',
    format: 'esm',
    outfile: file,
    minify: true,
    sourcemap: true,
    mainFields: ['module', 'main'],
    banner: { js: REQUIRE_SHIM },
    external: [],
    logLevel: 'warning',
    metafile: true,
  });
  return { file, metafile: result.metafile };
}
