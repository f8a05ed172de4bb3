import * as path from 'node:path';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { REPO_ROOT } from '../functions';

const CLI = path.join(REPO_ROOT, 'infra', 'runtime', 'stable-source-maps-cli.ts');

/** After esbuild, the shell command that makes the bundle's source maps independent of the synth folder. */
export function stableSourceMapCommand(inputDir: string, outputDir: string): string {
  return [process.execPath, CLI, outputDir, inputDir].map((arg) => JSON.stringify(arg)).join(' ');
}

/** Bundling hooks that only make the source maps stable (infra/runtime/stable-source-map.ts). */
export function stableSourceMapHooks(): ICommandHooks {
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir, outputDir) => [stableSourceMapCommand(inputDir, outputDir)],
  };
}
