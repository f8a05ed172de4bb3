import { DefaultStackSynthesizer } from 'aws-cdk-lib/core';
import type { Construct } from 'constructs';
import { githubRepository, oidcProviderMode } from './github-repository';
import { LOOKUP_ROLE_ARN_PLACEHOLDER, PIPELINE_STACK_NAME, PipelineStack } from './pipeline-stack';

/** The pipeline stack, when the app is given the repository (`-c githubRepository=<owner>/<repo>`). */
export function addPipelineStack(scope: Construct): PipelineStack | undefined {
  const repository = githubRepository(scope);
  if (repository === undefined) return undefined;
  return new PipelineStack(scope, PIPELINE_STACK_NAME, { repository, oidcProvider: oidcProviderMode(scope) });
}

/**
 * The service stacks' synthesizer: the bootstrap's, except that `cdk diff` reads the deployed
 * templates through the pipeline's custom lookup role. Where that role does not exist (no pipeline
 * stack), cdk falls back to the caller's own credentials, as before. Only the cloud assembly's
 * manifest changes; the templates are the same.
 */
export function serviceSynthesizer(): DefaultStackSynthesizer {
  return new DefaultStackSynthesizer({ lookupRoleArn: LOOKUP_ROLE_ARN_PLACEHOLDER });
}
