import { DefaultStackSynthesizer } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { bootstrapQualifierFor, type StageName } from '../../lib/contract/deployment';
import { accountStages } from './account-stages';
import { githubRepository, oidcProviderMode } from './github-repository';
import { LOOKUP_ROLE_ARN_PLACEHOLDER, PIPELINE_STACK_NAME, PipelineStack } from './pipeline-stack';

/**
 * The pipeline stack, when the app is given the repository (`-c githubRepository=<owner>/<repo>`),
 * with the roles of the stages the account holds (`-c accountStages=...`, every stage by default).
 */
export function addPipelineStack(scope: Construct): PipelineStack | undefined {
  const repository = githubRepository(scope);
  if (repository === undefined) return undefined;
  return new PipelineStack(scope, PIPELINE_STACK_NAME, {
    repository,
    oidcProvider: oidcProviderMode(scope),
    stages: accountStages(scope),
  });
}

/**
 * The service stacks' synthesizer: a stage's stack is deployed through that stage's own bootstrap
 * (its qualifier, lib/contract/deployment.ts), the account stack through the account's default
 * one; `cdk diff` of any of them reads the deployed templates through the pipeline's custom lookup
 * role. Where that role does not exist (no pipeline stack), cdk falls back to the caller's own
 * credentials. Only the cloud assembly's manifest and the BootstrapVersion parameter's name change.
 */
export function serviceSynthesizer(stage?: StageName): DefaultStackSynthesizer {
  return new DefaultStackSynthesizer({
    lookupRoleArn: LOOKUP_ROLE_ARN_PLACEHOLDER,
    ...(stage ? { qualifier: bootstrapQualifierFor(stage) } : {}),
  });
}
