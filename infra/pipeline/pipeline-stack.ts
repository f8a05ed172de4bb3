import { Aws, CfnOutput, Duration, Fn, Stack, type StackProps } from 'aws-cdk-lib/core';
import {
  ArnPrincipal,
  type IOidcProvider,
  ManagedPolicy,
  OidcProviderNative,
  PolicyDocument,
  Role,
  PolicyStatement,
  WebIdentityPrincipal,
} from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { ACCOUNT_STACK_NAME, STAGE_NAMES, stackNameFor, type StageName } from '../../lib/contract/deployment';
import { ADMIN_BOOTSTRAP, stageBootstrap } from './bootstrap';
import { PIPELINE_ROLE_NAMES } from './names';
import type { OidcProviderMode } from './github-repository';
import { executionStatements } from './execution-policy';
import { explainPipelineNagFindings } from './pipeline-nag';
import { boundaryStatements } from './permissions-boundary';
import { deployRolePolicies, lookupStatements, pipelineLimitStatements, preflightStatements } from './permissions';

/** The stack that lets GitHub Actions deploy: once per account, by an administrator, before the pipeline's first run. */
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
  /** The stages this account holds (infra/pipeline/account-stages.ts); every stage by default. */
  stages?: readonly StageName[];
}

/** What one stage of the account gets: its boundary, its execution policy, its deploy role. */
export interface StagePipeline {
  permissionsBoundary: ManagedPolicy;
  executionPolicy: ManagedPolicy;
  deployRole: Role;
}

/**
 * GitHub's OIDC provider and the pipeline's roles, for the stages this account holds. Each stage
 * gets its own permissions boundary, its own CloudFormation execution policy (for its own
 * bootstrap, `cdk bootstrap --qualifier`) and its own deploy role, trusted by that GitHub
 * environment's jobs alone, which may deploy, smoke-test and clean up that stage only (the `prod`
 * environment's approval is then the only way to prod credentials), and carries that stage's
 * boundary. The diff role, for pull requests, may only run the preflight and assume the custom
 * lookup role, which reads the stacks' templates and nothing else. None may assume a CDK
 * bootstrap role. An administrator deploys this stack (it creates the policies that bound
 * everything else), with the account's default bootstrap (docs/deployment.md).
 */
export class PipelineStack extends Stack {
  readonly provider: IOidcProvider;
  readonly stages: Partial<Record<StageName, StagePipeline>>;
  readonly diffRole: Role;
  readonly lookupRole: Role;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    const { repository, oidcProvider = 'create', stages = STAGE_NAMES, ...stackProps } = props;
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
    const policy = (...statements: PolicyStatement[]) => new PolicyDocument({ statements });

    this.stages = {};
    for (const stage of stages) this.stages[stage] = this.stagePipeline(stage, repository, trusted);

    this.diffRole = new Role(this, 'DiffRole', {
      roleName: PIPELINE_ROLE_NAMES.diff,
      description: `Pull requests of ${repository}: cdk diff through ${PIPELINE_ROLE_NAMES.lookup} only`,
      assumedBy: trusted(oidcSubject(repository, 'pull_request')),
      inlinePolicies: {
        preflight: policy(...preflightStatements(stages)),
        limits: policy(...pipelineLimitStatements()),
      },
    });
    this.lookupRole = new Role(this, 'LookupRole', {
      roleName: PIPELINE_ROLE_NAMES.lookup,
      description: 'cdk diff of the Store Orders stacks: reads their templates, nothing else',
      assumedBy: new ArnPrincipal(this.diffRole.roleArn),
      inlinePolicies: {
        lookup: policy(
          ...lookupStatements(
            [ACCOUNT_STACK_NAME, ...stages.map(stackNameFor)],
            [ADMIN_BOOTSTRAP, ...stages.map(stageBootstrap)].map((b) => b.versionParameterArn),
          ),
        ),
      },
    });
    // Granted once both exist: the lookup role's trust names the diff role.
    this.diffRole.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['sts:AssumeRole'], resources: [this.lookupRole.roleArn] }),
    );

    this.addOutputs(stages);
    explainPipelineNagFindings(this);
  }

  private stagePipeline(
    stage: StageName,
    repository: string,
    trusted: (subject: string) => WebIdentityPrincipal,
  ): StagePipeline {
    const permissionsBoundary = new ManagedPolicy(this, `${stage}PermissionsBoundary`, {
      managedPolicyName: PIPELINE_ROLE_NAMES.permissionsBoundary(stage),
      description: `Permissions boundary of every ${stage} role of Store Orders: the most any of them may do`,
      statements: boundaryStatements(stage),
    });
    const executionPolicy = new ManagedPolicy(this, `${stage}ExecutionPolicy`, {
      managedPolicyName: PIPELINE_ROLE_NAMES.executionPolicy(stage),
      description: `For cdk bootstrap --qualifier ${stageBootstrap(stage).qualifier} --cloudformation-execution-policies: what ${stackNameFor(stage)} creates`,
      statements: executionStatements(stage),
    });
    const deployRole = new Role(this, `${stage}DeployRole`, {
      roleName: PIPELINE_ROLE_NAMES.deploy(stage),
      description: `GitHub environment ${stage} of ${repository}: deploys and smoke-tests ${stackNameFor(stage)}`,
      assumedBy: trusted(oidcSubject(repository, { environment: stage })),
      maxSessionDuration: Duration.hours(2),
      permissionsBoundary,
      inlinePolicies: Object.fromEntries(
        Object.entries(deployRolePolicies(stage)).map(([name, statements]) => [
          name,
          new PolicyDocument({ statements }),
        ]),
      ),
    });
    return { permissionsBoundary, executionPolicy, deployRole };
  }

  private addOutputs(stages: readonly StageName[]): void {
    const output = (key: string, value: string, description: string) =>
      new CfnOutput(this, key, { value, description });
    for (const stage of stages) {
      const pipeline = this.stages[stage];
      if (!pipeline) continue;
      const { qualifier, toolkitStackName } = stageBootstrap(stage);
      output(`${stage}DeployRoleArn`, pipeline.deployRole.roleArn, `AWS_DEPLOY_ROLE_ARN of the ${stage} environment`);
      output(
        `${stage}ExecutionPolicyArn`,
        pipeline.executionPolicy.managedPolicyArn,
        `cdk bootstrap --qualifier ${qualifier} --cloudformation-execution-policies`,
      );
      output(
        `${stage}PermissionsBoundaryArn`,
        pipeline.permissionsBoundary.managedPolicyArn,
        `The boundary every role of ${stackNameFor(stage)} and its deploy role carry`,
      );
      output(
        `${stage}Bootstrap`,
        Fn.join(' ', [
          `npx cdk bootstrap aws://${Aws.ACCOUNT_ID}/${Aws.REGION}`,
          `--qualifier ${qualifier} --toolkit-stack-name ${toolkitStackName}`,
          `--cloudformation-execution-policies ${pipeline.executionPolicy.managedPolicyArn}`,
        ]),
        `The ${stage} stage's own bootstrap, with its execution policy`,
      );
    }
    output('DiffRoleArn', this.diffRole.roleArn, 'AWS_DIFF_ROLE_ARN of the repository');
    output('Region', Aws.REGION, 'AWS_REGION of the repository');
  }
}
