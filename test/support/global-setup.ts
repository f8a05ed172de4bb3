import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';

/** One embedded DynamoDB-compatible server for the whole run; each test file makes its own tables. */
export default async function globalSetup(): Promise<void> {
  // Workers inherit this environment: quiet logs, and no SDK notice about Node 20 on every file.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  // Metrics are EMF lines on stdout; the tests that check them turn them on for their own file.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // Every temporary folder of the run (the tests', CDK's synthesis and bundling, child processes')
  // goes into one folder that the teardown removes, so no run leaves folders in the machine's tmp.
  const runTmp = mkdtempSync(join(tmpdir(), 'store-orders-tests-'));
  process.env.STORE_ORDERS_TEST_TMP = runTmp;
  process.env.TMPDIR = runTmp;
  const server = await startEmbeddedDynamo({ port: 0 });
  process.env.TEST_DYNAMODB_ENDPOINT = server.endpoint;
  (globalThis as { __dynamo?: typeof server }).__dynamo = server;
}
