import {
  CreateTableCommand,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { TABLES, type TableId, type TableNames } from '../../lib/aws/tables';

/**
 * Creates the service's tables from their declarations in lib/aws/tables.ts, on the embedded server
 * (local stack, tests). Deployed stages get theirs from the CDK stack, which reads the same
 * declarations. Tables that exist already are kept. Returns the ids of the tables it created.
 */
export async function createTables(client: DynamoDBClient, names: TableNames): Promise<TableId[]> {
  const created = await Promise.all(
    (Object.keys(TABLES) as TableId[]).map(async (id) => {
      const spec = TABLES[id];
      const TableName = names[id];
      let isNew = false;
      try {
        await client.send(
          new CreateTableCommand({
            TableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: spec.partitionKey.name, AttributeType: spec.partitionKey.type }],
            KeySchema: [{ AttributeName: spec.partitionKey.name, KeyType: 'HASH' }],
          }),
        );
        isNew = true;
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
      if ('ttlAttribute' in spec) {
        await client
          .send(
            new UpdateTimeToLiveCommand({
              TableName,
              TimeToLiveSpecification: { AttributeName: spec.ttlAttribute, Enabled: true },
            }),
          )
          // dynalite does not implement TTL; expiry is then only a storage concern.
          .catch(() => undefined);
      }
      return isNew ? [id] : [];
    }),
  );
  return created.flat();
}
