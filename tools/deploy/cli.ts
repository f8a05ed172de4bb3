// `npm run deploy -- <stage>` / `npm run diff -- <stage>`: cdk deploy or cdk diff of one stage, with
// the cdk this repository pins. The pipeline (.github/workflows) calls these, never cdk itself.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { errorMessage, EXIT_FAILURE, EXIT_USAGE, UsageError } from '../shared/errors';
import { cdkArguments } from './args';

function main(): number {
  let args: string[];
  try {
    args = cdkArguments(process.argv[2], process.argv.slice(3));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`Error: ${error.message}\n`);
    return EXIT_USAGE;
  }
  const cdk = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
  const result = spawnSync(process.execPath, [cdk, ...args], { stdio: 'inherit' });
  if (result.error) {
    process.stderr.write(`Error: could not run cdk: ${errorMessage(result.error)}\n`);
    return EXIT_FAILURE;
  }
  return result.status ?? EXIT_FAILURE;
}

process.exitCode = main();
