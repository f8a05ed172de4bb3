import { ConditionalCheckFailedException, GetItemCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Whether the document client has marshalled the key yet depends on middleware order: take either form. */
function attributeKey(key: Record<string, unknown>): Record<string, AttributeValue> {
  const out: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(key)) {
    if (typeof value === 'bigint' || typeof value === 'number') out[name] = { N: String(value) };
    else if (typeof value === 'string') out[name] = { S: value };
    else out[name] = value as AttributeValue;
  }
  return out;
}

/**
 * DynamoDB returns the item with a failed condition when asked (ReturnValuesOnConditionCheckFailure
 * ALL_OLD); dynalite does not, so the repository falls back to a read that DynamoDB would not
 * need. While `enabled`, this fills the item in as DynamoDB would, read through `raw` (another client:
 * a document client shares its client's middleware stack, and the command log must not see it), so round trips can be counted as on DynamoDB too. Add it after the
 * command log so it runs inside it.
 */
export function emulateAllOldOnConditionFailure(doc: DynamoDBDocumentClient, raw: DynamoDBClient): { enabled: boolean } {
  const state = { enabled: false };
  doc.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        const input = args.input as { TableName?: string; Key?: Record<string, unknown>; ReturnValuesOnConditionCheckFailure?: string };
        if (state.enabled && error instanceof ConditionalCheckFailedException && !error.Item && input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD') {
          const { Item } = await raw.send(new GetItemCommand({ TableName: input.TableName, Key: attributeKey(input.Key ?? {}), ConsistentRead: true }));
          if (Item) error.Item = Item;
        }
        throw error;
      }
    },
    { step: 'initialize', name: 'benchEmulateAllOld' },
  );
  return state;
}
