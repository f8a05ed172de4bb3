// The deprecated GET /pets/{petId} as deployed: its route on its own function, its own table kept
// like the orders table, and a read-only grant on that table alone. Runs on the shared synthesis.
import { Match } from 'aws-cdk-lib/assertions';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { FUNCTIONS, type EntryId } from '../../lib/contract/deployment';
import { routeByOperation } from '../../lib/contract/routes';
import { arnOf, logicalId, ref, stageNamed, synthesiseStages, type Synthesised, type SynthesisedStage } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const route = routeByOperation('getPetById');

interface Statement {
  Action: string | string[];
  Resource: unknown;
}

/** Every `action resource` a function's role allows on DynamoDB. */
function dynamoPermissions(s: SynthesisedStage, entry: EntryId): string[] {
  const role = s.stack.functions[entry].role;
  const policies = Object.values(s.template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(role)] } }));
  const out: string[] = [];
  for (const policy of policies) {
    for (const st of (policy.Properties as { PolicyDocument: { Statement: Statement[] } }).PolicyDocument.Statement) {
      const actions = Array.isArray(st.Action) ? st.Action : [st.Action];
      const resources = Array.isArray(st.Resource) ? st.Resource : [st.Resource];
      for (const a of actions.filter((x) => x.startsWith('dynamodb:')))
        for (const r of resources) out.push(`${a} ${JSON.stringify(r)}`);
    }
  }
  return out.sort();
}

describe.each(['staging', 'prod'] as const)('the pets route of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test('GET /pets/{petId} is a buffered proxy to the get-pet alias, behind the authorizer and an API key', () => {
    const { template, stack } = stage();
    expect(route).toMatchObject({ method: 'GET', path: '/pets/{petId}', function: 'get-pet', streaming: false });
    expect(route.deprecated).toBeDefined();
    template.hasResourceProperties('AWS::ApiGateway::Method', {
      HttpMethod: 'GET',
      ResourceId: ref(stack.api.api.root.resourceForPath('/pets/{petId}')),
      OperationName: 'getPetById',
      AuthorizationType: 'CUSTOM',
      ApiKeyRequired: true,
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        Uri: { 'Fn::Join': ['', Match.arrayWith([ref(stack.functions['get-pet'].alias)])] },
      }),
    });
  });

  test('the pets table is keyed by a numeric id and kept exactly as the orders table is', () => {
    const { template, stack } = stage();
    const tables = template.findResources('AWS::DynamoDB::Table');
    const pets = tables[logicalId(stack.tables.tables.pets)];
    const orders = tables[logicalId(stack.tables.tables.orders)];
    expect(pets?.Properties?.KeySchema).toEqual([{ AttributeName: 'id', KeyType: 'HASH' }]);
    expect(pets?.Properties?.AttributeDefinitions).toEqual([
      { AttributeName: TABLES.pets.partitionKey.name, AttributeType: 'N' },
    ]);
    // As the orders table but for the v2 listing's indexes and the change stream, which only orders
    // have, and the tags, which name each table's own logical id (test/infra/retained-data.spec.ts).
    const withoutIndexes = (props: Record<string, unknown> | undefined) => {
      const {
        AttributeDefinitions: _definitions,
        GlobalSecondaryIndexes: _indexes,
        StreamSpecification: _stream,
        Tags: _tags,
        ...rest
      } = props ?? {};
      return rest;
    };
    expect(withoutIndexes(pets?.Properties)).toEqual(withoutIndexes(orders?.Properties));
    expect([pets?.DeletionPolicy, pets?.UpdateReplacePolicy]).toEqual([
      orders?.DeletionPolicy,
      orders?.UpdateReplacePolicy,
    ]);
  });

  test('get-pet may only GetItem on the pets table (and count its requests); nothing else may touch pets', () => {
    const s = stage();
    const arn = (id: TableId) => JSON.stringify(arnOf(s.stack.tables.tables[id]));
    expect(dynamoPermissions(s, 'get-pet')).toEqual(
      [
        `dynamodb:GetItem ${arn('pets')}`,
        `dynamodb:GetItem ${arn('rateLimits')}`,
        `dynamodb:UpdateItem ${arn('rateLimits')}`,
      ].sort(),
    );
    for (const entry of Object.keys(FUNCTIONS) as EntryId[]) {
      if (entry === 'get-pet') continue;
      expect(dynamoPermissions(s, entry).filter((p) => p.endsWith(arn('pets')))).toEqual([]);
    }
  });

  test('only get-pet is told the pets table name', () => {
    const { template, stack } = stage();
    const functions = template.findResources('AWS::Lambda::Function');
    for (const entry of Object.keys(FUNCTIONS) as EntryId[]) {
      const variables = (
        functions[logicalId(stack.functions[entry].function)]?.Properties as {
          Environment: { Variables: Record<string, unknown> };
        }
      ).Environment.Variables;
      expect(variables[TABLES.pets.envVar]).toEqual(entry === 'get-pet' ? ref(stack.tables.tables.pets) : undefined);
    }
  });
});
