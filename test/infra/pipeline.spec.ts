// The pipeline stack (infra/pipeline): who may assume its roles and what each may do, read from
// the shared synthesis. The ARNs are rendered with fixed pseudo parameters (test/support/cfn-values.ts).
import { App } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import {
  CANARY_KEY_SECRET_TAG,
  STAGE_NAMES,
  stackNameFor,
  STREAMING_PROBE_FUNCTION,
  type StageName,
} from '../../lib/contract/deployment';
import { CANARY_KEY_SECRET_ACTIONS } from '../../infra/pipeline/canary-key-permissions';
import { ContextFlagError } from '../../infra/cloudwatch-role-mode';
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
    expect(deploy().denied).toEqual([
      expect.objectContaining({
        Action: ['sts:AssumeRole'],
        Resource: [`arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-*`],
      }),
    ]);
  });

  test('may deploy its stage and the account stack, through the execution role only', () => {
    const all = grants(deploy().allowed);
    for (const stack of [stackNameFor(stage), 'StoreOrders-account']) {
      expect(all).toContain(
        `cloudformation:ExecuteChangeSet arn:aws:cloudformation:${REGION}:${ACCOUNT}:stack/${stack}/*`,
      );
    }
    const passRole = deploy().allowed.filter((s) => s.Action.includes('iam:PassRole'));
    expect(passRole).toEqual([
      expect.objectContaining({
        Resource: [`arn:aws:iam::${ACCOUNT}:role/cdk-hnb659fds-cfn-exec-role-${ACCOUNT}-${REGION}`],
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
    const tables = all.filter((g) => g.startsWith('dynamodb:')).map((g) => g.split(' ')[1]);
    expect(new Set(tables)).toEqual(new Set([`arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${stackNameFor(stage)}-*`]));
  });

  test(`may read and store the release canary key secret tagged ${stage}, and no other secret`, () => {
    const secrets = deploy().allowed.filter((s) => s.Action.some((a) => a.startsWith('secretsmanager:')));
    expect(secrets).toEqual([
      expect.objectContaining({
        Action: CANARY_KEY_SECRET_ACTIONS,
        Resource: [`arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:*`],
        Condition: { StringEquals: { [`aws:ResourceTag/${CANARY_KEY_SECRET_TAG}`]: stage } },
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

describe('the CloudFormation execution policy', () => {
  const policy = () => {
    const [resource] = Object.values(
      synthesised.pipeline.template.findResources('AWS::IAM::ManagedPolicy', {
        Properties: { ManagedPolicyName: PIPELINE_ROLE_NAMES.executionPolicy },
      }),
    );
    return resource?.Properties as { ManagedPolicyName: string; PolicyDocument: unknown };
  };

  // What it allows, against each resource type's needs, is in pipeline-permissions.spec.ts.
  test('is named for --cloudformation-execution-policies and grants no service wholesale', () => {
    expect(policy().ManagedPolicyName).toBe(PIPELINE_ROLE_NAMES.executionPolicy);
    for (const statement of statements(policy().PolicyDocument)) {
      expect(statement.Action).not.toContain('*');
      expect(statement.Action.filter((a) => a.endsWith(':*') && a.startsWith('iam:'))).toEqual([]);
    }
  });
});

test('the stack outputs give the workflow its variables and bootstrap its policy', () => {
  const outputs = rendered(synthesised.pipeline.template.toJSON().Outputs) as Record<string, unknown>;
  expect(Object.keys(outputs).sort()).toEqual(
    [
      ...STAGE_NAMES.map((s) => `${s}DeployRoleArn`),
      'DiffRoleArn',
      'ExecutionPolicyArn',
      'PermissionsBoundaryArn',
      'Region',
    ].sort(),
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

describe('with -c githubOidcProvider=existing', () => {
  test("the account's provider is trusted, none is created", () => {
    const app = testApp({
      context: { [GITHUB_REPOSITORY_CONTEXT]: TEST_REPOSITORY, [GITHUB_OIDC_PROVIDER_CONTEXT]: 'existing' },
    });
    const stack = addPipelineStack(app);
    if (!stack) throw new Error('no pipeline stack');
    const template = Template.fromStack(stack);
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
