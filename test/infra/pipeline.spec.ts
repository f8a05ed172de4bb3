// The pipeline stack (infra/pipeline): who may assume its roles and what each may do, read from
// the shared synthesis. The ARNs are rendered with fixed pseudo parameters (test/support/cfn-values.ts).
import { App } from 'aws-cdk-lib/core';
import { Match, Template } from 'aws-cdk-lib/assertions';
import {
  bootstrapQualifierFor,
  CANARY_KEY_SECRET_TAG,
  STAGE_NAMES,
  stackNameFor,
  STREAMING_PROBE_FUNCTION,
  toolkitStackNameFor,
  type StageName,
} from '../../lib/contract/deployment';
import { CANARY_KEY_SECRET_ACTIONS } from '../../infra/pipeline/canary-key-permissions';
import { STAGE_TAG } from '../../infra/pipeline/names';
import { ContextFlagError } from '../../infra/cloudwatch-role-mode';
import { ACCOUNT_STAGES_CONTEXT, accountStages } from '../../infra/pipeline/account-stages';
import { stackDeletionRefused } from '../../infra/pipeline/permissions';
import {
  GITHUB_OIDC_PROVIDER_CONTEXT,
  GITHUB_REPOSITORY_CONTEXT,
  githubRepository,
  oidcProviderMode,
} from '../../infra/pipeline/github-repository';
import { addPipelineStack } from '../../infra/pipeline/pipeline-app';
import { GITHUB_OIDC_HOST, PIPELINE_ROLE_NAMES } from '../../infra/pipeline/pipeline-stack';
import { PSEUDO, rendered, statements, type Statement } from '../support/cfn-values';
import { logicalId, synthesiseStages, synthesisMessages, TEST_REPOSITORY, testApp, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const { 'AWS::AccountId': ACCOUNT, 'AWS::Region': REGION } = PSEUDO;

interface RoleResource {
  Properties: {
    RoleName: string;
    AssumeRolePolicyDocument: unknown;
    Policies?: { PolicyName: string; PolicyDocument: unknown }[];
    ManagedPolicyArns?: unknown[];
  };
}

function role(name: string): { id: string; trust: Statement[]; allowed: Statement[]; denied: Statement[] } {
  const { template } = synthesised.pipeline;
  const found = Object.entries(template.findResources('AWS::IAM::Role')).find(
    ([, r]) => (r as RoleResource).Properties.RoleName === name,
  );
  if (!found) throw new Error(`No role ${name}`);
  const [id, resource] = found as [string, RoleResource];
  // Inline policies, and the separate AWS::IAM::Policy resources CDK attaches to the role.
  const attached = Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((p) => JSON.stringify(p.Properties?.Roles) === JSON.stringify([{ Ref: id }]))
    .map((p) => p.Properties?.PolicyDocument as unknown);
  const all = [...(resource.Properties.Policies ?? []).map((p) => p.PolicyDocument), ...attached].flatMap(statements);
  expect(resource.Properties.ManagedPolicyArns ?? []).toEqual([]);
  return {
    id,
    trust: statements(resource.Properties.AssumeRolePolicyDocument),
    allowed: all.filter((s) => s.Effect === 'Allow'),
    denied: all.filter((s) => s.Effect === 'Deny'),
  };
}

/** Every (action, resource) pair a role is allowed. */
const grants = (allowed: Statement[]) =>
  allowed.flatMap((s) => s.Action.flatMap((a) => s.Resource.map((r) => `${a} ${r}`)));

// The provider's Ref is its ARN.
const providerArn = () => `<${logicalId(synthesised.pipeline.stack.provider)}>`;

function expectGitHubTrust(trust: Statement[], subject: string): void {
  expect(trust).toEqual([
    {
      Effect: 'Allow',
      Action: ['sts:AssumeRoleWithWebIdentity'],
      Resource: [],
      Principal: { Federated: providerArn() },
      Condition: {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: 'sts.amazonaws.com', [`${GITHUB_OIDC_HOST}:sub`]: subject },
      },
    },
  ]);
}

test("the OIDC provider is GitHub Actions', for STS", () => {
  synthesised.pipeline.template.hasResourceProperties('AWS::IAM::OIDCProvider', {
    Url: `https://${GITHUB_OIDC_HOST}`,
    ClientIdList: ['sts.amazonaws.com'],
  });
});

describe.each(STAGE_NAMES)('the %s deploy role', (stage: StageName) => {
  const other = STAGE_NAMES.find((s) => s !== stage) ?? '';
  const deploy = () => role(PIPELINE_ROLE_NAMES.deploy(stage));

  test(`trusts only the ${stage} environment's jobs of the repository`, () => {
    expectGitHubTrust(deploy().trust, `repo:${TEST_REPOSITORY}:environment:${stage}`);
  });

  test(`names no resource of ${other}, and may assume no role`, () => {
    const all = grants(deploy().allowed);
    expect(all.filter((g) => g.includes(stackNameFor(other as StageName)))).toEqual([]);
    expect(all.filter((g) => g.includes(bootstrapQualifierFor(other as StageName)))).toEqual([]);
    // Nor does a wildcard reach them: the other stage's stack and a table named as CloudFormation names them.
    const theirs = [
      `arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stackNameFor(other as StageName)}/1a2b`,
      `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${stackNameFor(other as StageName)}-OrdersTable-1A2B`,
    ];
    const reaching = all.filter((grant) => {
      const [action = '', pattern = ''] = grant.split(' ');
      // GetAccountSettings has no resource-level permission: its '*' names no stack or table.
      if (action === 'lambda:GetAccountSettings') return false;
      const glob = new RegExp(
        `^${pattern
          .split('*')
          .map((part) => part.replace(/[.?+^$()[\]{}|\\/]/g, '\\$&'))
          .join('.*')}$`,
      );
      return theirs.some((arn) => glob.test(arn));
    });
    expect(reaching).toEqual([]);
    expect(all.filter((g) => g.startsWith('sts:'))).toEqual([]);
    expect(deploy().denied).toContainEqual(
      expect.objectContaining({ Action: ['sts:AssumeRole'], Resource: [`arn:aws:iam::${ACCOUNT}:role/cdk-*`] }),
    );
  });

  test(`may deploy its stage alone, through ${stage}'s own bootstrap`, () => {
    const all = grants(deploy().allowed);
    expect(all).toContain(
      `cloudformation:ExecuteChangeSet arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stackNameFor(stage)}/*`,
    );
    expect(all.filter((g) => g.includes('StoreOrders-account'))).toEqual([]);
    expect(all).toContain(
      `cloudformation:DescribeStacks arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${toolkitStackNameFor(stage)}/*`,
    );
    const passRole = deploy().allowed.filter((s) => s.Action.includes('iam:PassRole'));
    expect(passRole).toEqual([
      expect.objectContaining({
        Resource: [
          `arn:aws:iam::${ACCOUNT}:role/cdk-${bootstrapQualifierFor(stage)}-cfn-exec-role-${ACCOUNT}-${REGION}`,
        ],
        Condition: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
      }),
    ]);
  });

  test("smoke may revoke its throwaway keys: delete usage-plan keys and API keys, in the stage's tables only", () => {
    const all = grants(deploy().allowed);
    expect(all).toEqual(
      expect.arrayContaining([
        `apigateway:DELETE arn:aws:apigateway:${REGION}::/usageplans/*/keys/*`,
        `apigateway:DELETE arn:aws:apigateway:${REGION}::/apikeys/*`,
        `apigateway:POST arn:aws:apigateway:${REGION}::/usageplans/*/keys`,
        `apigateway:GET arn:aws:apigateway:${REGION}::/apikeys`,
      ]),
    );
    // A usage plan's keys take the plan's tags: binding and unbinding reach the stage's own plans.
    const onPlans = deploy().allowed.filter((st) => st.Resource.some((r) => r.includes('/usageplans/')));
    expect(onPlans.map((st) => st.Condition)).toEqual(
      onPlans.map(() => ({ StringEquals: { [`aws:ResourceTag/${STAGE_TAG}`]: stage } })),
    );
    const tables = all.filter((g) => g.startsWith('dynamodb:')).map((g) => g.split(' ')[1]);
    expect(new Set(tables)).toEqual(new Set([`arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${stackNameFor(stage)}-*`]));
  });

  test(`may read and store the release canary key secret tagged ${stage}, and no other secret`, () => {
    const secrets = deploy().allowed.filter((s) => s.Action.some((a) => a.startsWith('secretsmanager:')));
    // Both tags: the stage's (which no other stage's template may give: the execution policies refuse it) and the canary key's.
    expect(secrets).toEqual([
      expect.objectContaining({
        Action: CANARY_KEY_SECRET_ACTIONS,
        Resource: [`arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:*`],
        Condition: {
          StringEquals: {
            [`aws:ResourceTag/${STAGE_TAG}`]: stage,
            [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage,
          },
        },
      }),
    ]);
    // The key's record and its revocation marks: what canary-key create sends to the stage's tables.
    const all = grants(deploy().allowed);
    for (const action of ['GetItem', 'PutItem', 'UpdateItem', 'Scan'])
      expect(all).toContain(`dynamodb:${action} arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${stackNameFor(stage)}-*`);
  });
});

describe('pull requests', () => {
  test('the diff role trusts only pull requests, and may assume only the custom lookup role', () => {
    const diff = role(PIPELINE_ROLE_NAMES.diff);
    expectGitHubTrust(diff.trust, `repo:${TEST_REPOSITORY}:pull_request`);
    const lookup = role(PIPELINE_ROLE_NAMES.lookup);
    expect(grants(diff.allowed).sort()).toEqual(
      [
        'lambda:GetAccountSettings *',
        `lambda:InvokeFunction arn:aws:lambda:${REGION}:${ACCOUNT}:function:${STREAMING_PROBE_FUNCTION}`,
        // The preflight reads what each stage's deployed functions reserve already.
        ...STAGE_NAMES.flatMap((stage) => [
          `cloudformation:ListStackResources arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stackNameFor(stage)}/*`,
          `lambda:GetFunctionConcurrency arn:aws:lambda:${REGION}:${ACCOUNT}:function:${stackNameFor(stage)}-*`,
        ]),
        `sts:AssumeRole <${lookup.id}.Arn>`,
      ].sort(),
    );
  });

  test('the lookup role is assumed by the diff role alone and reads templates, no data', () => {
    const lookup = role(PIPELINE_ROLE_NAMES.lookup);
    const diff = role(PIPELINE_ROLE_NAMES.diff);
    expect(lookup.trust).toEqual([
      expect.objectContaining({ Action: ['sts:AssumeRole'], Principal: { AWS: `<${diff.id}.Arn>` } }),
    ]);
    const actions = new Set(lookup.allowed.flatMap((s) => s.Action));
    expect([...actions].sort()).toEqual(
      [
        'cloudformation:DescribeStacks',
        'cloudformation:GetTemplate',
        'cloudformation:ListStackResources',
        'ssm:GetParameter',
      ].sort(),
    );
  });

  test("the service stacks' cdk diff looks up through the custom lookup role", () => {
    const manifest = synthesised.pipeline.stack.node.root as App;
    for (const stack of manifest.synth().stacks.filter((s) => s.stackName.startsWith('StoreOrders-'))) {
      if (stack.stackName === 'StoreOrders-pipeline') continue;
      expect(stack.lookupRole?.arn).toBe(
        `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${PIPELINE_ROLE_NAMES.lookup}`,
      );
    }
  });
});

describe.each(STAGE_NAMES)("%s's CloudFormation execution policy", (stage: StageName) => {
  const policy = () => {
    const [resource] = Object.values(
      synthesised.pipeline.template.findResources('AWS::IAM::ManagedPolicy', {
        Properties: { ManagedPolicyName: PIPELINE_ROLE_NAMES.executionPolicy(stage) },
      }),
    );
    return resource?.Properties as { ManagedPolicyName: string; PolicyDocument: unknown };
  };

  // What it allows, request by request, is in stage-isolation.spec.ts.
  test('is named for its stage and grants no service wholesale', () => {
    expect(policy().ManagedPolicyName).toBe(PIPELINE_ROLE_NAMES.executionPolicy(stage));
    const allowed = statements(policy().PolicyDocument).filter((st) => st.Effect === 'Allow');
    expect(allowed.length).toBeGreaterThan(10);
    for (const statement of allowed) {
      expect(statement.Action).not.toContain('*');
      expect(statement.Action.filter((a) => /^(iam|secretsmanager|apigateway):\*$/.test(a))).toEqual([]);
    }
  });
});

test("the prod deploy role is refused deleting prod's stack; staging's may, to recover a failed first create", () => {
  expect(stackDeletionRefused('prod')).toBe(true);
  synthesised.pipeline.template.hasResourceProperties('AWS::IAM::Role', {
    RoleName: PIPELINE_ROLE_NAMES.deploy('prod'),
    Policies: Match.arrayWith([
      Match.objectLike({
        PolicyName: 'deploy',
        PolicyDocument: Match.objectLike({
          Statement: Match.arrayWith([
            Match.objectLike({
              Effect: 'Deny',
              Action: 'cloudformation:DeleteStack',
              Resource: { 'Fn::Join': ['', Match.arrayWith([`:stack/${stackNameFor('prod')}/*`])] },
            }),
          ]),
        }),
      }),
    ]),
  });
  expect(stackDeletionRefused('staging')).toBe(false);
  expect(role(PIPELINE_ROLE_NAMES.deploy('staging')).denied.flatMap((st) => st.Action)).not.toContain(
    'cloudformation:DeleteStack',
  );
});

test('the stack outputs give the workflow its variables and bootstrap its policy', () => {
  const outputs = rendered(synthesised.pipeline.template.toJSON().Outputs) as Record<string, unknown>;
  expect(Object.keys(outputs).sort()).toEqual(
    [
      ...STAGE_NAMES.flatMap((s) => [
        `${s}DeployRoleArn`,
        `${s}ExecutionPolicyArn`,
        `${s}PermissionsBoundaryArn`,
        `${s}Bootstrap`,
      ]),
      'DiffRoleArn',
      'Region',
    ].sort(),
  );
  expect(String((outputs.prodBootstrap as { Value: unknown }).Value)).toContain(
    `--qualifier ${bootstrapQualifierFor('prod')} --toolkit-stack-name ${toolkitStackNameFor('prod')}`,
  );
});

test('cdk-nag reports nothing unexplained on the pipeline stack', () => {
  for (const pack of ['AwsSolutions-.*', 'Serverless-.*']) {
    expect(synthesisMessages(synthesised.pipeline.stack, 'error', pack)).toEqual([]);
    expect(synthesisMessages(synthesised.pipeline.stack, 'warning', pack)).toEqual([]);
  }
});

test.each(['acme/*', 'acme', 'repo:acme/x:environment:prod', 7])(
  '-c githubRepository=%p is refused: a trust cannot be widened from the command line',
  (value) => {
    const app = new App({ context: { [GITHUB_REPOSITORY_CONTEXT]: value } });
    expect(() => githubRepository(app)).toThrow(ContextFlagError);
    expect(() => githubRepository(app)).toThrow(/-c githubRepository=<owner>\/<repo>/);
  },
);

/** The pipeline stack of an app given the repository and this context. */
function pipelineTemplate(context: Record<string, unknown>): Template {
  const stack = addPipelineStack(testApp({ context: { [GITHUB_REPOSITORY_CONTEXT]: TEST_REPOSITORY, ...context } }));
  if (!stack) throw new Error('no pipeline stack');
  return Template.fromStack(stack);
}

describe('with -c githubOidcProvider=existing', () => {
  test("the account's provider is trusted, none is created", () => {
    const template = pipelineTemplate({ [GITHUB_OIDC_PROVIDER_CONTEXT]: 'existing' });
    template.resourceCountIs('AWS::IAM::OIDCProvider', 0);
    const trusts = Object.values(template.findResources('AWS::IAM::Role')).flatMap((r) =>
      statements((r.Properties as RoleResource['Properties']).AssumeRolePolicyDocument),
    );
    const federated = trusts.flatMap((t) => (t.Principal?.Federated === undefined ? [] : [t.Principal.Federated]));
    // Each deploy role and the diff role: the account's provider, by its ARN.
    const provider = `arn:aws:iam::${ACCOUNT}:oidc-provider/${GITHUB_OIDC_HOST}`;
    expect(federated).toEqual(Array.from({ length: STAGE_NAMES.length + 1 }, () => provider));
  });

  test('any other mode is refused with the two it takes', () => {
    const app = new App({ context: { [GITHUB_OIDC_PROVIDER_CONTEXT]: 'import' } });
    expect(() => oidcProviderMode(app)).toThrow(
      '-c githubOidcProvider=import is not a mode: use -c githubOidcProvider=create or -c githubOidcProvider=existing.',
    );
  });
});

describe('with -c accountStages (one account per stage)', () => {
  test("an account that holds prod only gets prod's roles and policies only", () => {
    const template = pipelineTemplate({ [ACCOUNT_STAGES_CONTEXT]: 'prod' });
    const names = Object.values(template.findResources('AWS::IAM::Role')).map((r) => String(r.Properties.RoleName));
    expect(names.sort()).toEqual(
      [PIPELINE_ROLE_NAMES.deploy('prod'), PIPELINE_ROLE_NAMES.diff, PIPELINE_ROLE_NAMES.lookup].sort(),
    );
    const policies = Object.values(template.findResources('AWS::IAM::ManagedPolicy')).map((r) =>
      String(r.Properties.ManagedPolicyName),
    );
    expect(policies.sort()).toEqual(
      [PIPELINE_ROLE_NAMES.executionPolicy('prod'), PIPELINE_ROLE_NAMES.permissionsBoundary('prod')].sort(),
    );
    // The diff role's preflight and the lookup role read prod (and the account stack) only.
    expect(JSON.stringify(template.toJSON())).not.toContain(stackNameFor('staging'));
  });

  test.each(['qa', 'prod,prod', '', 7])('-c accountStages=%p is refused with the stages it takes', (value) => {
    const app = new App({ context: { [ACCOUNT_STAGES_CONTEXT]: value } });
    expect(() => accountStages(app)).toThrow(ContextFlagError);
    expect(() => accountStages(app)).toThrow(/-c accountStages=<stage>\[,<stage>\] with staging, prod/);
  });

  test("a list in any order is taken in the stages' order", () => {
    expect(accountStages(new App({ context: { [ACCOUNT_STAGES_CONTEXT]: 'prod, staging' } }))).toEqual(STAGE_NAMES);
  });
});
