// What outlives prod's stack (its tables and secrets), and what a new stack needs to take it back by
// CloudFormation resource import (docs/operations.md#a-new-stack-takes-the-retained-data-back): each
// resource retained, tagged with its stack and its logical id, importable alone, and under a logical
// id that never changes.
import type { IConstruct } from 'constructs';
import { TABLES, type TableId } from '../../lib/contract/tables';
import { stackNameFor } from '../../lib/contract/deployment';
import { RETAKE_TAGS } from '../../infra/retained-data';
import type { StoreOrdersStack } from '../../infra/stack';
import { logicalId, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

/**
 * The logical ids prod's retained resources were deployed with. A new id would make an update create
 * a new, empty resource beside the retained one (which CloudFormation lets go), and the retake's
 * mapping, read from the resources' tags, would name ids the new template does not have.
 */
const RETAINED_LOGICAL_IDS: Record<TableId | 'cursorKey' | 'canaryKey', string> = {
  orders: 'TablesOrdersACF7C9C0',
  pets: 'TablesPetsD2B49199',
  apiKeys: 'TablesApiKeys330F873D',
  rateLimits: 'TablesRateLimits87C09B19',
  webhookEndpoints: 'TablesWebhookEndpointsF7982590',
  webhookDeliveries: 'TablesWebhookDeliveriesB9A5DC79',
  cursorKey: 'CursorKey255E8F8A',
  canaryKey: 'ReleasesCanaryKeyDA97377A',
};

function retainedOf(stack: StoreOrdersStack): Record<keyof typeof RETAINED_LOGICAL_IDS, IConstruct> {
  return {
    ...(stack.tables.tables as Record<TableId, IConstruct>),
    cursorKey: stack.cursorKey,
    canaryKey: stack.releases.canaryKey,
  };
}

const DATA_TYPES = ['AWS::DynamoDB::Table', 'AWS::SecretsManager::Secret'];

describe('prod', () => {
  const prod = () => stageNamed(synthesised, 'prod');

  test('its tables and secrets are all retained, under the logical ids they were deployed with', () => {
    const { template, stack } = prod();
    const resources = template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>;
    const data = Object.entries(resources).filter(([, r]) => DATA_TYPES.includes(r.Type));
    expect(data.map(([, r]) => r.DeletionPolicy)).toEqual(data.map(() => 'Retain'));
    const retained = retainedOf(stack);
    expect(Object.fromEntries(Object.entries(retained).map(([name, c]) => [name, logicalId(c)]))).toEqual(
      RETAINED_LOGICAL_IDS,
    );
    expect(data.map(([id]) => id).sort()).toEqual(Object.values(RETAINED_LOGICAL_IDS).sort());
  });

  test.each(Object.keys(RETAINED_LOGICAL_IDS))(
    '%s carries its stack and its logical id as tags, which outlive the stack',
    (name) => {
      const { template } = prod();
      const id = RETAINED_LOGICAL_IDS[name as keyof typeof RETAINED_LOGICAL_IDS];
      const resource = (template.toJSON().Resources as Record<string, { Properties: { Tags?: unknown } }>)[id];
      expect(resource?.Properties.Tags).toEqual(
        expect.arrayContaining([
          { Key: RETAKE_TAGS.stack, Value: stackNameFor('prod') },
          { Key: RETAKE_TAGS.logicalId, Value: id },
        ]),
      );
    },
  );

  // `cdk import` of a stack that does not exist creates it with the imported resources alone, so
  // none may refer to another resource of the template (it would not be there).
  test.each(Object.keys(RETAINED_LOGICAL_IDS))('%s refers to no other resource of the template', (name) => {
    const { template } = prod();
    const resources = template.toJSON().Resources as Record<string, unknown>;
    const id = RETAINED_LOGICAL_IDS[name as keyof typeof RETAINED_LOGICAL_IDS];
    const text = JSON.stringify(resources[id]);
    const referred = Object.keys(resources).filter(
      (other) => other !== id && (text.includes(`{"Ref":"${other}"}`) || text.includes(`"Fn::GetAtt":["${other}"`)),
    );
    expect(referred).toEqual([]);
  });
});

test('staging keeps nothing, so nothing of it is tagged to be taken back', () => {
  const { template } = stageNamed(synthesised, 'staging');
  const resources = template.toJSON().Resources as Record<string, { Type: string; DeletionPolicy?: string }>;
  const data = Object.values(resources).filter((r) => DATA_TYPES.includes(r.Type));
  expect(data.length).toBeGreaterThan(0);
  expect(JSON.stringify(data)).not.toContain(RETAKE_TAGS.logicalId);
  expect(data.filter((r) => r.Type === 'AWS::DynamoDB::Table').map((r) => r.DeletionPolicy)).toEqual(
    (Object.keys(TABLES) as TableId[]).map(() => 'Delete'),
  );
});
