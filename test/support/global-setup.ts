import { startEmbeddedDynamo } from '../../tools/local/embedded-dynamo';

/** One embedded DynamoDB-compatible server for the whole run; each test file makes its own tables. */
export default async function globalSetup(): Promise<void> {
  // Workers inherit this environment: quiet logs, and no SDK notice about Node 20 on every file.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  process.env.POWERTOOLS_LOG_LEVEL ??= 'SILENT';
  // Metrics are EMF lines on stdout; the tests that check them turn them on for their own file.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const server = await startEmbeddedDynamo({ port: 0 });
  process.env.TEST_DYNAMODB_ENDPOINT = server.endpoint;
  (globalThis as { __dynamo?: typeof server }).__dynamo = server;
}
