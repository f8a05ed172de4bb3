// The v2 listing's infrastructure: the orders table's indexes, the function's read-only grants and
// its cursor key. (The v2 route on the RestApi is not deployed yet: see docs/design.md.)
import { Match } from 'aws-cdk-lib/assertions';
import { ORDER_INDEXES, TABLES } from '../../lib/contract/tables';
import { CURSOR_KEY_ENV } from '../../lib/contract/sync';
import { logicalId, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('v2 in %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('the orders table has both indexes, string keys, every attribute projected', () => {
    const { template, stack } = stage();
    const orders = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables.orders)];
    const props = orders?.Properties as {
      GlobalSecondaryIndexes: { IndexName: string; KeySchema: unknown; Projection: unknown }[];
      AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
    };
    const declared = TABLES.orders.indexes;
    expect(props.GlobalSecondaryIndexes).toHaveLength(declared.length);
    for (const index of Object.values(ORDER_INDEXES)) {
      expect(props.GlobalSecondaryIndexes).toContainEqual({
        IndexName: index.name,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          { AttributeName: index.sortKey.name, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
      expect(props.AttributeDefinitions).toContainEqual({ AttributeName: index.partitionKey.name, AttributeType: 'S' });
      expect(props.AttributeDefinitions).toContainEqual({ AttributeName: index.sortKey.name, AttributeType: 'S' });
    }
  });

  test('list-orders-v2 may Scan the orders table and Query its indexes by name, and write nothing to it', () => {
    const { template, stack } = stage();
    const role = stack.functions['list-orders-v2'].role;
    const orders = logicalId(stack.tables.tables.orders);
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(role)] } }));
    const onOrders = policies
      .flatMap(
        (p) =>
          (p.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }).PolicyDocument
            .Statement,
      )
      .filter((st) => JSON.stringify(st.Resource).includes(orders));
    const actions = onOrders.flatMap((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]));
    expect(actions.sort()).toEqual(['dynamodb:Query', 'dynamodb:Scan']);
    const query = JSON.stringify(onOrders.find((st) => st.Action === 'dynamodb:Query')?.Resource);
    for (const index of Object.values(ORDER_INDEXES)) expect(query).toContain(`/index/${index.name}`);
    expect(query).not.toContain('*');
  });

  test('its cursor key comes from a generated secret, by dynamic reference, never written in the template', () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    const fn = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions['list-orders-v2'].function)];
    const env = (fn?.Properties as { Environment: { Variables: Record<string, unknown> } }).Environment.Variables;
    expect(JSON.stringify(env[CURSOR_KEY_ENV])).toMatch(/resolve:secretsmanager:/);
    template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });
});
