import { Aws, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib/core';
import {
  ArnPrincipal,
  type IOidcProvider,
  ManagedPolicy,
  OidcProviderNative,
  PermissionsBoundary,
  PolicyDocument,
  Role,
  PolicyStatement,
  WebIdentityPrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ACCOUNT_STACK_NAME, STAGE_NAMES, stackNameFor, type StageName } from '../../lib/contract/deployment';
import { BOOTSTRAP_ROLES_ARN } from './bootstrap';
import { PIPELINE_ROLE_NAMES } from './names';
import type { OidcProviderMode } from './github-repository';
import { executionStatements } from './execution-policy';
import { explainPipelineNagFindings } from './pipeline-nag';
import { boundaryStatements } from './permissions-boundary';
import { canaryKeyStatements } from './canary-key-permissions';
import { denyStatement, deployStatements, lookupStatements, preflightStatements, smokeStatements } from './permissions';

/** The stack that lets GitHub Actions deploy: once per account, before the pipeline's first run. */
export const PIPELINE_STACK_NAME = 'StoreOrders-pipeline';

export const GITHUB_OIDC_HOST = 'token.actions.githubusercontent.com';
export const GITHUB_OIDC_AUDIENCE = 'sts.amazonaws.com';

export { PIPELINE_ROLE_NAMES } from './names';

/** The custom lookup role, as the stages' synthesizer names it for `cdk diff` (placeholders, not tokens). */
export const LOOKUP_ROLE_ARN_PLACEHOLDER = `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:role/${PIPELINE_ROLE_NAMES.lookup}`;

/** The token subject GitHub gives a job: one environment's jobs, or a pull request's. */
export function oidcSubject(repository: string, who: { environment: StageName } | 'pull_request'): string {
  return who === 'pull_request'
    ? `repo:${repository}:pull_request`
    : `repo:${repository}:environment:${who.environment}`;
}

export interface PipelineStackProps extends StackProps {
  /** `owner/repo` (infra/pipeline/github-repository.ts). */
  repository: string;
  /** Whether the account's GitHub OIDC provider is made here or already exists. */
  oidcProvider?: OidcProviderMode;
}

/**
 * GitHub's OIDC provider and the pipeline's roles. Each stage's role is trusted by that GitHub
 * environment's jobs alone and may deploy, smoke-test and clean up that stage only (the `prod`
 * environment's approval is then the only way to prod credentials). The diff role, for pull
 * requests, may only assume the custom lookup role, which reads the stacks' templates and nothing
 * else. None may assume the CDK bootstrap's roles. The managed policy is what the bootstrap's
 * CloudFormation execution role gets instead of AdministratorAccess (docs/deployment.md).
 */
export class PipelineStack extends Stack {
  readonly provider: IOidcProvider;
  readonly deployRoles: Record<StageName, Role>;
  readonly diffRole: Role;
  readonly lookupRole: Role;
  readonly executionPolicy: ManagedPolicy;
  readonly permissionsBoundary: ManagedPolicy;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    const { repository, oidcProvider = 'create', ...stackProps } = props;
    super(scope, id, { description: `Store Orders API: GitHub Actions roles for ${repository}`, ...stackProps });
    this.provider =
      oidcProvider === 'existing'
        ? OidcProviderNative.fromOidcProviderArn(
            this,
            'GitHubOidc',
            `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:oidc-provider/${GITHUB_OIDC_HOST}`,
          )
        : new OidcProviderNative(this, 'GitHubOidc', {
            url: `https://${GITHUB_OIDC_HOST}`,
            clientIds: [GITHUB_OIDC_AUDIENCE],
          });
    const trusted = (subject: string) =>
      new WebIdentityPrincipal(this.provider.oidcProviderArn, {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: GITHUB_OIDC_AUDIENCE, [`${GITHUB_OIDC_HOST}:sub`]: subject },
      });
    const noBootstrapRoles = denyStatement(['sts:AssumeRole'], [BOOTSTRAP_ROLES_ARN]);
    const policy = (...statements: PolicyStatement[]) => new PolicyDocument({ statements });
    // Made before any role, and on every role here too: the execution policy lets CloudFormation
    // create or change a role only with this boundary, this stack's included.
    this.permissionsBoundary = new ManagedPolicy(this, 'PermissionsBoundary', {
      managedPolicyName: PIPELINE_ROLE_NAMES.permissionsBoundary,
      description: 'Permissions boundary of every Store Orders role: the most any of them may do',
      statements: boundaryStatements(),
    });
    PermissionsBoundary.of(this).apply(this.permissionsBoundary);

    this.deployRoles = {} as Record<StageName, Role>;
    for (const stage of STAGE_NAMES) {
      this.deployRoles[stage] = new Role(this, `${stage}DeployRole`, {
        roleName: PIPELINE_ROLE_NAMES.deploy(stage),
        description: `GitHub environment ${stage} of ${repository}: deploys and smoke-tests ${stackNameFor(stage)}`,
        assumedBy: trusted(oidcSubject(repository, { environment: stage })),
        maxSessionDuration: Duration.hours(2),
        inlinePolicies: {
          deploy: policy(...deployStatements(stage)),
          smoke: policy(...smokeStatements(stage)),
          canaryKey: policy(...canaryKeyStatements(stage)),
          limits: policy(noBootstrapRoles),
        },
      });
    }
    this.diffRole = new Role(this, 'DiffRole', {
      roleName: PIPELINE_ROLE_NAMES.diff,
      description: `Pull requests of ${repository}: cdk diff through ${PIPELINE_ROLE_NAMES.lookup} only`,
      assumedBy: trusted(oidcSubject(repository, 'pull_request')),
      inlinePolicies: { preflight: policy(...preflightStatements(STAGE_NAMES)), limits: policy(noBootstrapRoles) },
    });
    this.lookupRole = new Role(this, 'LookupRole', {
      roleName: PIPELINE_ROLE_NAMES.lookup,
      description: 'cdk diff of the Store Orders stacks: reads their templates, nothing else',
      assumedBy: new ArnPrincipal(this.diffRole.roleArn),
      inlinePolicies: {
        lookup: policy(...lookupStatements([ACCOUNT_STACK_NAME, ...STAGE_NAMES.map(stackNameFor)])),
      },
    });
    // Granted once both exist: the lookup role's trust names the diff role.
    this.diffRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [this.lookupRole.roleArn] }),
    );
    this.executionPolicy = new ManagedPolicy(this, 'ExecutionPolicy', {
      managedPolicyName: PIPELINE_ROLE_NAMES.executionPolicy,
      description: 'For cdk bootstrap --cloudformation-execution-policies: what the Store Orders stacks create',
      statements: executionStatements(),
    });

    const output = (key: string, value: string, description: string) =>
      new CfnOutput(this, key, { value, description });
    for (const stage of STAGE_NAMES) {
      output(
        `${stage}DeployRoleArn`,
        this.deployRoles[stage].roleArn,
        `AWS_DEPLOY_ROLE_ARN of the ${stage} environment`,
      );
    }
    output('DiffRoleArn', this.diffRole.roleArn, 'AWS_DIFF_ROLE_ARN of the repository');
    output(
      'ExecutionPolicyArn',
      this.executionPolicy.managedPolicyArn,
      'cdk bootstrap --cloudformation-execution-policies',
    );
    output(
      'PermissionsBoundaryArn',
      this.permissionsBoundary.managedPolicyArn,
      'The boundary every role of the Store Orders stacks carries',
    );
    output('Region', Aws.REGION, 'AWS_REGION of the repository');
    explainPipelineNagFindings(this);
  }
}
