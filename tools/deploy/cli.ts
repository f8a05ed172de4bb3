// `npm run deploy -- <stage>` / `npm run diff -- <stage>`: cdk deploy or cdk diff of one stage, with
// the cdk this repository pins, after a preflight of the account (run.ts). The pipeline
// (.github/workflows) calls these, never cdk itself.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { LIST_ORDERS_RESERVED_CONCURRENCY } from '../../lib/contract/deployment';
import { EXIT_FAILURE } from '../shared/errors';
import { lambdaAccountFacts } from './preflight';
import { runDeployCommand } from './run';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const lambda = new LambdaClient({});
const cloudFormation = new CloudFormationClient({});
const secretsManager = new SecretsManagerClient({});
const clients = [lambda, cloudFormation, secretsManager];
runDeployCommand(process.argv.slice(2), {
  facts: () => lambdaAccountFacts(lambda, cloudFormation, secretsManager),
  reservation: (stage) => LIST_ORDERS_RESERVED_CONCURRENCY[stage],
  cdk: (args) => {
    const cdk = createRequire(import.meta.url).resolve('aws-cdk/bin/cdk');
    const result = spawnSync(process.execPath, [cdk, ...args], { stdio: 'inherit' });
    if (result.error) throw result.error;
    return result.status ?? EXIT_FAILURE;
  },
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
  cwd: process.cwd(),
}).then(
  (code) => {
    for (const client of clients) client.destroy();
    process.exitCode = code;
  },
  (error: unknown) => {
    for (const client of clients) client.destroy();
    throw error;
  },
);
