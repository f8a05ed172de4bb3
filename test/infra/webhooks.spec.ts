// The webhook endpoints' table as deployed (issue 45): keyed by owner and slot, expiring tombstones,
// and the sparse index of enabled endpoints the delivery's fan-out reads, which carries no secret.
import { TABLES, WEBHOOK_ENDPOINT_INDEXES } from '../../lib/contract/tables';
import { V2_ROUTES } from '../../lib/contract/routes';
import type { Method } from 'aws-cdk-lib/aws-apigateway';
import { logicalId, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

describe.each(['staging', 'prod'] as const)('webhook endpoints of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test("the table holds a key's endpoints in one partition, its deleted ids expiring", () => {
    const { template, stack } = stage();
    const table = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables.webhookEndpoints)];
    expect(table?.Properties).toMatchObject({
      KeySchema: [
        { AttributeName: 'ownerKeyId', KeyType: 'HASH' },
        { AttributeName: 'entry', KeyType: 'RANGE' },
      ],
      TimeToLiveSpecification: { AttributeName: TABLES.webhookEndpoints.ttlAttribute, Enabled: true },
    });
  });

  test('the enabled index is keyed by its one partition and the id, and projects the URL and types, never a secret', () => {
    const { template, stack } = stage();
    const table = template.findResources('AWS::DynamoDB::Table')[logicalId(stack.tables.tables.webhookEndpoints)];
    const indexes = (table?.Properties as { GlobalSecondaryIndexes: Record<string, unknown>[] }).GlobalSecondaryIndexes;
    expect(indexes).toEqual([
      {
        IndexName: WEBHOOK_ENDPOINT_INDEXES.enabled.name,
        KeySchema: [
          { AttributeName: 'enabledKey', KeyType: 'HASH' },
          { AttributeName: 'id', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['url', 'eventTypes'] },
      },
    ]);
    expect(JSON.stringify(indexes)).not.toMatch(/secret/i);
  });

  test('every endpoint route is a method of the v2 API invoking the webhook-endpoints alias', () => {
    const { template, stack } = stage();
    const routes = V2_ROUTES.filter((route) => route.function === 'webhook-endpoints');
    expect(routes.map((route) => `${route.method} ${route.path}`)).toEqual([
      'POST /webhook-endpoints',
      'GET /webhook-endpoints',
      'GET /webhook-endpoints/{endpointId}',
      'DELETE /webhook-endpoints/{endpointId}',
      'POST /webhook-endpoints/{endpointId}/rotate-secret',
      'GET /webhook-endpoints/{endpointId}/deliveries',
      'POST /webhook-endpoints/{endpointId}/test',
    ]);
    for (const route of routes) {
      const method = stack.v2Api.routeMethods[route.operationId];
      expect(method).toBeDefined();
      const props = template.findResources('AWS::ApiGateway::Method')[logicalId(method as Method)]?.Properties as {
        Integration: { Uri: unknown };
      };
      expect(JSON.stringify(props.Integration.Uri)).toContain(
        JSON.stringify(ref(stack.functions['webhook-endpoints'].alias)),
      );
    }
  });
});
