// The pipeline's permissions against what AWS needs, checked the way they fail: each deploy role
// against CDK's own deploy role for the same job (the bootstrap template aws-cdk ships), each
// stage's CloudFormation execution policy against the resource types the stage synthesises
// (infra/pipeline/resource-actions.ts), and each stage's permissions boundary against its roles.
// What each allows, request by request, an IAM policy simulator decides in stage-isolation.spec.ts.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { bootstrapQualifierFor, STAGE_NAMES, stackNameFor, type StageName } from '../../lib/contract/deployment';
import {
  BOUNDED_ROLE_ACTIONS,
  PASSED_TO_SERVICES,
  PROTECTED_POLICY_ACTIONS,
} from '../../infra/pipeline/execution-policy';
import { PIPELINE_ROLE_NAMES } from '../../infra/pipeline/names';
import { CDK_DEPLOY_ACTIONS_NOT_NEEDED } from '../../infra/pipeline/permissions';
import { actionsWithoutResourceType, RESOURCE_TYPE_ACTIONS } from '../../infra/pipeline/resource-actions';
import { CREATE_MAPPING_ACTION, invokesStageFunction } from '../../infra/pipeline/stream-permissions';
import { PSEUDO, rendered, statements, type Statement } from '../support/cfn-values';
import { synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION } = PSEUDO;
const ROOT = path.join(__dirname, '..', '..');

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;
const resources = (template: { toJSON(): unknown }) => (template.toJSON() as { Resources: Resources }).Resources;

const stageResources = (stage: StageName): Resources => {
  const found = synthesised.stages.find((s) => s.stage === stage);
  if (!found) throw new Error(`No ${stage}`);
  return resources(found.template);
};

/** An IAM pattern (`*` any run of characters) as a regular expression; actions ignore case. */
function glob(pattern: string, flags = ''): RegExp {
  const escaped = pattern.split('*').map((part) => part.replace(/[.?+^$()[\]{}|\\/]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`, flags);
}

/** Whether an Allow statement of the list allows the action (on the resource, when given). */
function allows(list: Statement[], action: string, resource?: string): boolean {
  return list.some(
    (s) =>
      s.Effect === 'Allow' &&
      s.Action.some((a) => glob(a, 'i').test(action)) &&
      (resource === undefined || s.Resource.some((r) => glob(r).test(resource))),
  );
}

function roleNamed(name: string): { id: string; statements: Statement[]; boundary: unknown } {
  const all = resources(synthesised.pipeline.template);
  const id = Object.keys(all).find((key) => all[key]?.Properties?.RoleName === name);
  if (!id) throw new Error(`No role ${name}`);
  const role = all[id]?.Properties as { Policies?: { PolicyDocument: unknown }[]; PermissionsBoundary?: unknown };
  return {
    id,
    statements: (role.Policies ?? []).map((p) => p.PolicyDocument).flatMap(statements),
    boundary: rendered(role.PermissionsBoundary),
  };
}

function managedPolicy(name: string): { id: string; statements: Statement[] } {
  const all = resources(synthesised.pipeline.template);
  const id = Object.keys(all).find(
    (key) => all[key]?.Type === 'AWS::IAM::ManagedPolicy' && all[key]?.Properties?.ManagedPolicyName === name,
  );
  if (!id) throw new Error(`No managed policy ${name}`);
  return { id, statements: statements(all[id]?.Properties?.PolicyDocument) };
}

const executionPolicy = (stage: StageName) => managedPolicy(PIPELINE_ROLE_NAMES.executionPolicy(stage)).statements;
const boundary = (stage: StageName) => managedPolicy(PIPELINE_ROLE_NAMES.permissionsBoundary(stage)).statements;
const policyArn = (name: string) => `arn:aws:iam::${ACCOUNT}:policy/${name}`;

describe("each deploy role against CDK's own deploy role", () => {
  /** The CloudFormation and SSM actions of the bootstrap template's DeploymentActionRole. */
  function cdkDeployActions(): string[] {
    const file = path.join(ROOT, 'node_modules', 'aws-cdk', 'lib', 'api', 'bootstrap', 'bootstrap-template.yaml');
    const template = parse(readFileSync(file, 'utf8')) as {
      Resources: {
        DeploymentActionRole: {
          Properties: { Policies: { PolicyDocument: { Statement: { Action: string | string[] }[] } }[] };
        };
      };
    };
    const actions = template.Resources.DeploymentActionRole.Properties.Policies.flatMap((p) =>
      p.PolicyDocument.Statement.flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action])),
    );
    return actions.filter((a) => /^(cloudformation|ssm):/.test(a));
  }

  test("what ours does without is all in CDK's role, each with its reason", () => {
    const cdk = cdkDeployActions();
    expect(cdk.length).toBeGreaterThan(5);
    for (const action of Object.keys(CDK_DEPLOY_ACTIONS_NOT_NEEDED)) expect(cdk).toContain(action);
  });

  test.each(STAGE_NAMES)('the %s deploy role grants every other one, on its stack, with its bootstrap', (stage) => {
    const ours = roleNamed(PIPELINE_ROLE_NAMES.deploy(stage)).statements;
    const versionParameter = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/cdk-bootstrap/${bootstrapQualifierFor(stage)}/version`;
    const stack = `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stackNameFor(stage)}/1a2b`;
    const missing = cdkDeployActions()
      .filter((action) => !(action in CDK_DEPLOY_ACTIONS_NOT_NEEDED))
      .filter((action) => !allows(ours, action, action.startsWith('ssm:') ? versionParameter : stack));
    expect(missing).toEqual([]);
  });
});

describe.each(STAGE_NAMES)("%s's CloudFormation execution policy", (stage: StageName) => {
  test('every resource type the stage synthesises has its actions declared', () => {
    const types = new Set(Object.values(stageResources(stage)).map((r) => r.Type));
    types.delete('AWS::CDK::Metadata');
    expect(types.size).toBeGreaterThan(10);
    expect([...types].filter((type) => !(type in RESOURCE_TYPE_ACTIONS))).toEqual([]);
  });

  test('allows the actions without a resource type on "*", where IAM can match them, and nothing else there', () => {
    const policy = executionPolicy(stage);
    const unscoped = actionsWithoutResourceType();
    expect(unscoped).toContain('secretsmanager:GetRandomPassword');
    expect(unscoped.filter((action) => !allows(policy, action, '*'))).toEqual([]);
    const onEverything = policy.filter((s) => s.Effect === 'Allow' && s.Resource.includes('*'));
    expect(onEverything.flatMap((s) => s.Action).sort()).toEqual(unscoped);
    // Creating an event source mapping only for the stage's functions.
    const conditioned = onEverything.filter((s) => s.Condition !== undefined);
    expect(conditioned).toEqual([
      expect.objectContaining({
        Action: [CREATE_MAPPING_ACTION],
        Condition: rendered(synthesised.pipeline.stack.resolve(invokesStageFunction(stage))),
      }),
    ]);
  });

  test("creates or changes a role only with the stage's own permissions boundary", () => {
    const boundaryArn = policyArn(PIPELINE_ROLE_NAMES.permissionsBoundary(stage));
    for (const action of BOUNDED_ROLE_ACTIONS) {
      const granting = executionPolicy(stage).filter(
        (s) => s.Effect === 'Allow' && s.Action.some((a) => glob(a, 'i').test(action)),
      );
      expect(granting.length).toBeGreaterThan(0);
      for (const statement of granting) {
        expect(statement.Condition).toEqual({ StringEquals: { 'iam:PermissionsBoundary': boundaryArn } });
      }
    }
    const denied = executionPolicy(stage).filter((s) => s.Effect === 'Deny');
    expect(denied).toContainEqual(
      expect.objectContaining({ Action: ['iam:DeleteRolePermissionsBoundary'], Resource: ['*'] }),
    );
  });

  test("may change no policy of the project, every stage's execution policy and boundary included", () => {
    const denied = executionPolicy(stage).filter((s) => s.Effect === 'Deny');
    const names = STAGE_NAMES.flatMap((s) => [
      PIPELINE_ROLE_NAMES.executionPolicy(s),
      PIPELINE_ROLE_NAMES.permissionsBoundary(s),
    ]);
    for (const action of ['iam:CreatePolicyVersion', 'iam:DeletePolicyVersion', 'iam:SetDefaultPolicyVersion']) {
      expect(PROTECTED_POLICY_ACTIONS).toContain(action);
      for (const name of names) {
        const refused = denied.some(
          (s) => s.Action.includes(action) && s.Resource.some((r) => glob(r).test(policyArn(name))),
        );
        expect(`${action} ${name} ${String(refused)}`).toBe(`${action} ${name} true`);
      }
    }
  });

  test("passes roles only to the services the stage's roles trust", () => {
    const trusted = new Set(
      Object.values(stageResources(stage))
        .filter((r) => r.Type === 'AWS::IAM::Role')
        .flatMap((r) => statements(r.Properties?.AssumeRolePolicyDocument))
        .flatMap((s) => {
          const service = s.Principal?.Service;
          return service === undefined ? [] : Array.isArray(service) ? service.map(String) : [String(service)];
        }),
    );
    expect([...trusted].sort()).toEqual([...PASSED_TO_SERVICES].sort());
    const passRole = executionPolicy(stage).filter(
      (s) => s.Effect === 'Allow' && s.Action.some((a) => glob(a, 'i').test('iam:PassRole')),
    );
    expect(passRole).toEqual([
      expect.objectContaining({ Condition: { StringEquals: { 'iam:PassedToService': PASSED_TO_SERVICES } } }),
    ]);
  });
});

describe.each(STAGE_NAMES)("%s's permissions boundary", (stage: StageName) => {
  test("is on every role of the stage's stack and on its deploy role", () => {
    const arn = policyArn(PIPELINE_ROLE_NAMES.permissionsBoundary(stage));
    const unbounded = Object.entries(stageResources(stage))
      .filter(([, r]) => r.Type === 'AWS::IAM::Role')
      .filter(([, r]) => rendered(r.Properties?.PermissionsBoundary) !== arn)
      .map(([id]) => id);
    expect(unbounded).toEqual([]);
    const { id } = managedPolicy(PIPELINE_ROLE_NAMES.permissionsBoundary(stage));
    expect(roleNamed(PIPELINE_ROLE_NAMES.deploy(stage)).boundary).toBe(`<${id}>`);
  });

  test("allows no IAM change but handing the stage's execution role to CloudFormation", () => {
    const iam = boundary(stage).filter(
      (s) => s.Effect === 'Allow' && s.Action.some((a) => a.startsWith('iam:') || a === '*'),
    );
    expect(iam).toEqual([
      expect.objectContaining({
        Action: ['iam:PassRole'],
        Resource: [
          `arn:aws:iam::${ACCOUNT}:role/cdk-${bootstrapQualifierFor(stage)}-cfn-exec-role-${ACCOUNT}-${REGION}`,
        ],
      }),
    ]);
  });
});
