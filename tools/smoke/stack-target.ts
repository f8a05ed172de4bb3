// The admin functions the smoke command uses, on the DynamoDB a local stack published.
import { createDocumentClient, createDynamoClient } from '../../lib/stores/dynamo';
import { tablesTarget, type AdminTarget } from '../admin/target';
import type { StackDynamo } from '../shared/stack-dynamo';

export function stackTarget({ endpoint, tables }: StackDynamo): AdminTarget {
  const client = createDynamoClient({ endpoint });
  return tablesTarget({
    doc: createDocumentClient(client),
    names: tables,
    label: `the local stack (DynamoDB at ${endpoint})`,
    unreachableHint: `The local stack published its DynamoDB at ${endpoint}, and it does not answer: restart npm start.`,
    close: () => client.destroy(),
  });
}
