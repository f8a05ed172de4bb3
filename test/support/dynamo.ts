import { randomUUID } from 'node:crypto';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteTableCommand, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { tableNamesWithPrefix } from '../../lib/contract/tables';
import { createTables } from '../../tools/local/create-tables';
import type { TableNames } from '../../lib/contract/tables';
import type { Wiring } from '../../lib/root/wiring';
import { storesOn, type TestStores } from './stores';

export interface TestTables {
  endpoint: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  names: TableNames;
  /**
   * The stores on these tables from the composition root (test/support/stores.ts): the same ones
   * each time without a wiring, a new set for each wiring given (a clock, timers, a failing table).
   */
  stores(wiring?: Partial<Wiring>): TestStores;
  /** Frees the clients (its own and its stores'), leaving the tables; drop() does too. */
  closeClients(): void;
  drop(): Promise<void>;
}

/** The embedded server started by the jest global setup. */
export function testEndpoint(): string {
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (!endpoint) throw new Error('TEST_DYNAMODB_ENDPOINT is not set: run the tests through jest');
  return endpoint;
}

/**
 * Fresh tables with unique names on the embedded server (or another one), so test files never
 * share state.
 */
export async function createTestTables(endpoint: string = testEndpoint()): Promise<TestTables> {
  const client = createDynamoClient({ endpoint });
  const doc = createDocumentClient(client);
  const names = tableNamesWithPrefix(`test-${randomUUID().slice(0, 8)}`);
  await createTables(client, names);
  const made = storesOn({ endpoint, names });
  const closeClients = () => {
    made.close();
    client.destroy();
  };
  return {
    endpoint,
    client,
    doc,
    names,
    stores: made.stores,
    closeClients,
    drop: async () => {
      // A reply that comes after the SDK's timeout (a busy embedded server) is retried, and the
      // retry finds the table already deleted: gone is what drop is for.
      const drop = (TableName: string) =>
        client.send(new DeleteTableCommand({ TableName })).catch((error: unknown) => {
          if (!(error instanceof ResourceNotFoundException)) throw error;
        });
      await Promise.all(Object.values(names).map(drop));
      closeClients();
    },
  };
}
