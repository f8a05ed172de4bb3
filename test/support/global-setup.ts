import { startEmbeddedDynamo } from '../../infra/local/embedded-dynamo';

/** One embedded DynamoDB-compatible server for the whole run; each test file makes its own tables. */
export default async function globalSetup(): Promise<void> {
  const server = await startEmbeddedDynamo({ port: 0 });
  process.env.TEST_DYNAMODB_ENDPOINT = server.endpoint;
  (globalThis as { __dynamo?: typeof server }).__dynamo = server;
}
