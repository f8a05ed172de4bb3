// The pipeline's permissions against what AWS needs, checked the way they fail: each deploy role
// against CDK's own deploy role for the same job (the bootstrap template aws-cdk ships), the
// CloudFormation execution policy against what CloudFormation calls for each resource type the app
// synthesises (infra/pipeline/resource-actions.ts), and the permissions boundary against every role.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'yaml';
import { STAGE_NAMES, stackNameFor, type StageName } from '../../lib/contract/deployment';
import {
  BOUNDED_ROLE_ACTIONS,
  PASSED_TO_SERVICES,
  PROTECTED_POLICY_ACTIONS,
} from '../../infra/pipeline/execution-policy';
import { PIPELINE_ROLE_NAMES } from '../../infra/pipeline/names';
import { CDK_DEPLOY_ACTIONS_NOT_NEEDED, deployedStacks } from '../../infra/pipeline/permissions';
import { actionsWithoutResourceType, RESOURCE_TYPE_ACTIONS } from '../../infra/pipeline/resource-actions';
import { PSEUDO, rendered, statements, type Statement } from '../support/cfn-values';
import { logicalId, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION } = PSEUDO;
const ROOT = path.join(__dirname, '..', '..');

type Resources = Record<string, { Type: string; Properties?: Record<string, unknown> }>;
const resources = (template: { toJSON(): unknown }) => (template.toJSON() as { Resources: Resources }).Resources;

/** Every template of the shared synthesis, by stack name. */
function templates(): [string, Resources][] {
  return [
    ['StoreOrders-account', resources(synthesised.account.template)],
    ['StoreOrders-pipeline', resources(synthesised.pipeline.template)],
    ...synthesised.stages.map((s): [string, Resources] => [stackNameFor(s.stage), resources(s.template)]),
  ];
}

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

/** A role's allowed statements: its inline policies and the AWS::IAM::Policy resources attached to it. */
function roleStatements(all: Resources, roleId: string): Statement[] {
  const role = all[roleId]?.Properties as { Policies?: { PolicyDocument: unknown }[] } | undefined;
  const attached = Object.values(all)
    .filter((r) => r.Type === 'AWS::IAM::Policy')
    .filter((r) => JSON.stringify(r.Properties?.Roles).includes(`"Ref":"${roleId}"`))
    .map((r) => r.Properties?.PolicyDocument);
  return [...(role?.Policies ?? []).map((p) => p.PolicyDocument), ...attached].flatMap(statements);
}

function roleNamed(name: string): { id: string; statements: Statement[] } {
  const all = resources(synthesised.pipeline.template);
  const id = Object.keys(all).find((key) => all[key]?.Properties?.RoleName === name);
  if (!id) throw new Error(`No role ${name}`);
  return { id, statements: roleStatements(all, id) };
}

const executionPolicy = (): Statement[] => {
  const all = resources(synthesised.pipeline.template);
  const policy = Object.values(all).find(
    (r) =>
      r.Type === 'AWS::IAM::ManagedPolicy' && r.Properties?.ManagedPolicyName === PIPELINE_ROLE_NAMES.executionPolicy,
  );
  return statements(policy?.Properties?.PolicyDocument);
};

const boundary = (): Statement[] =>
  statements(
    resources(synthesised.pipeline.template)[logicalId(synthesised.pipeline.stack.permissionsBoundary)]?.Properties
      ?.PolicyDocument,
  );

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

  test.each(STAGE_NAMES)('the %s deploy role grants every other one, on its own stacks', (stage: StageName) => {
    const ours = roleNamed(PIPELINE_ROLE_NAMES.deploy(stage)).statements;
    const versionParameter = `arn:aws:ssm:${REGION}:${ACCOUNT}:parameter/cdk-bootstrap/hnb659fds/version`;
    const missing = cdkDeployActions()
      .filter((action) => !(action in CDK_DEPLOY_ACTIONS_NOT_NEEDED))
      .flatMap((action) => {
        const targets = action.startsWith('ssm:')
          ? [versionParameter]
          : deployedStacks(stage).map((name) => `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${name}/1a2b`);
        return targets.filter((target) => !allows(ours, action, target)).map((target) => `${action} ${target}`);
      });
    expect(missing).toEqual([]);
  });
});

describe('the CloudFormation execution policy', () => {
  test('every resource type the app synthesises has its actions declared', () => {
    const types = new Set(templates().flatMap(([, all]) => Object.values(all).map((r) => r.Type)));
    types.delete('AWS::CDK::Metadata');
    expect(types.size).toBeGreaterThan(10);
    expect([...types].filter((type) => !(type in RESOURCE_TYPE_ACTIONS))).toEqual([]);
  });

  test('allows every action CloudFormation calls for each declared type', () => {
    const policy = executionPolicy();
    const missing = Object.entries(RESOURCE_TYPE_ACTIONS).flatMap(([type, { actions }]) =>
      actions.filter((action) => !allows(policy, action)).map((action) => `${type} ${action}`),
    );
    expect(missing).toEqual([]);
  });

  test('allows the actions without a resource type on "*", where IAM can match them, and nothing else there', () => {
    const policy = executionPolicy();
    const unscoped = actionsWithoutResourceType();
    expect(unscoped).toContain('secretsmanager:GetRandomPassword');
    expect(unscoped.filter((action) => !allows(policy, action, '*'))).toEqual([]);
    const onEverything = policy
      .filter((s) => s.Effect === 'Allow' && s.Resource.includes('*'))
      .flatMap((s) => s.Action);
    expect(onEverything.sort()).toEqual(unscoped);
  });

  test('creates or changes a role only with the permissions boundary', () => {
    const boundaryArn = `arn:aws:iam::${ACCOUNT}:policy/${PIPELINE_ROLE_NAMES.permissionsBoundary}`;
    for (const action of BOUNDED_ROLE_ACTIONS) {
      const granting = executionPolicy().filter(
        (s) => s.Effect === 'Allow' && s.Action.some((a) => glob(a, 'i').test(action)),
      );
      expect(granting.length).toBeGreaterThan(0);
      for (const statement of granting) {
        expect(statement.Condition).toEqual({ StringEquals: { 'iam:PermissionsBoundary': boundaryArn } });
      }
    }
    const denied = executionPolicy().filter((s) => s.Effect === 'Deny');
    expect(denied).toContainEqual(
      expect.objectContaining({ Action: ['iam:DeleteRolePermissionsBoundary'], Resource: ['*'] }),
    );
  });

  test('may change neither its own policy nor the boundary', () => {
    const protectedArns = [PIPELINE_ROLE_NAMES.executionPolicy, PIPELINE_ROLE_NAMES.permissionsBoundary].map(
      (name) => `arn:aws:iam::${ACCOUNT}:policy/${name}`,
    );
    const denied = executionPolicy().filter((s) => s.Effect === 'Deny');
    for (const action of ['iam:CreatePolicyVersion', 'iam:DeletePolicyVersion', 'iam:SetDefaultPolicyVersion']) {
      expect(PROTECTED_POLICY_ACTIONS).toContain(action);
      for (const arn of protectedArns) {
        expect(
          `${action} ${arn} ${String(denied.some((s) => s.Action.includes(action) && s.Resource.includes(arn)))}`,
        ).toBe(`${action} ${arn} true`);
      }
    }
  });

  test("passes roles only to the services the stacks' roles trust", () => {
    const trusted = new Set(
      templates().flatMap(([, all]) =>
        Object.values(all)
          .filter((r) => r.Type === 'AWS::IAM::Role')
          .flatMap((r) => statements(r.Properties?.AssumeRolePolicyDocument))
          .flatMap((s) => {
            const service = s.Principal?.Service;
            return service === undefined ? [] : Array.isArray(service) ? service.map(String) : [String(service)];
          }),
      ),
    );
    expect([...trusted].sort()).toEqual([...PASSED_TO_SERVICES].sort());
    const passRole = executionPolicy().filter(
      (s) => s.Effect === 'Allow' && s.Action.some((a) => glob(a, 'i').test('iam:PassRole')),
    );
    expect(passRole).toEqual([
      expect.objectContaining({ Condition: { StringEquals: { 'iam:PassedToService': PASSED_TO_SERVICES } } }),
    ]);
  });
});

describe('the permissions boundary', () => {
  test('is on every role of every stack', () => {
    const pipelineBoundary = `<${logicalId(synthesised.pipeline.stack.permissionsBoundary)}>`;
    const serviceBoundary = `arn:aws:iam::${ACCOUNT}:policy/${PIPELINE_ROLE_NAMES.permissionsBoundary}`;
    const unbounded = templates().flatMap(([stack, all]) =>
      Object.entries(all)
        .filter(([, r]) => r.Type === 'AWS::IAM::Role')
        .filter(
          ([, r]) =>
            rendered(r.Properties?.PermissionsBoundary) !==
            (stack === 'StoreOrders-pipeline' ? pipelineBoundary : serviceBoundary),
        )
        .map(([id]) => `${stack} ${id}`),
    );
    expect(templates().length).toBe(STAGE_NAMES.length + 2);
    expect(unbounded).toEqual([]);
  });

  test('allows everything the roles are granted (a boundary only takes away)', () => {
    const cap = boundary();
    expect(cap.length).toBeGreaterThan(5);
    const cut = templates().flatMap(([stack, all]) =>
      Object.entries(all)
        .filter(([, r]) => r.Type === 'AWS::IAM::Role')
        .flatMap(([id]) =>
          roleStatements(all, id)
            .filter((s) => s.Effect === 'Allow')
            .flatMap((s) =>
              s.Action.flatMap((action) =>
                // A resource named by a reference is only known once deployed: its action is checked.
                (s.Resource.every((r) => !r.includes('<')) ? s.Resource : [undefined]).map((resource) => ({
                  action,
                  resource,
                })),
              ),
            )
            .filter(({ action, resource }) => !allows(cap, action, resource))
            .map(({ action, resource }) => `${stack} ${id} ${action} ${resource ?? ''}`),
        ),
    );
    expect(cut).toEqual([]);
  });

  test('allows no IAM change but handing the execution role to CloudFormation', () => {
    const iam = boundary().filter((s) => s.Action.some((a) => a.startsWith('iam:') || a === '*'));
    expect(iam).toEqual([
      expect.objectContaining({
        Action: ['iam:PassRole'],
        Resource: [`arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-${REGION}`],
      }),
    ]);
  });
});
