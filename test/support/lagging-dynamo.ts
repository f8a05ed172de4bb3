import {
  startEmbeddedDynamo,
  type EmbeddedDynamo,
  type EmbeddedDynamoOptions,
} from '../../tools/local/embedded-dynamo';
import { createTestTables, type TestTables } from './dynamo';

export interface LaggingTables extends TestTables {
  /** The private server: `settleIndexes()` for a final comparison. */
  dynamo: EmbeddedDynamo;
  /** Stops the server (applying held writes and deferred index changes first). */
  close(): Promise<void>;
}

export type LagOptions = Pick<EmbeddedDynamoOptions, 'indexLag' | 'holdWrites' | 'dataDir' | 'clock' | 'stream'>;

/**
 * A private embedded server inside this test worker, as late as DynamoDB can be where asked (index
 * lag, held writes: see tools/local/embedded-dynamo.ts), with fresh test tables on it. The shared
 * server of the jest global setup stays prompt for every other test.
 */
export async function startLaggingTables(options: LagOptions): Promise<LaggingTables> {
  const dynamo = await startEmbeddedDynamo({ port: 0, ...options });
  try {
    const tables = await createTestTables(dynamo.endpoint);
    return {
      ...tables,
      dynamo,
      close: async () => {
        tables.closeClients();
        await dynamo.close();
      },
    };
  } catch (error) {
    await dynamo.close();
    throw error;
  }
}
