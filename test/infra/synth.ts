import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Stack, Stage, type CfnElement } from 'aws-cdk-lib/core';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { STAGE_NAMES, type StageName } from '../../lib/contract/deployment';
import { addServiceStacks } from '../../infra/service-app';
import type { ApiGatewayAccountStack } from '../../infra/account-stack';
import { GITHUB_REPOSITORY_CONTEXT } from '../../infra/pipeline/github-repository';
import { addPipelineStack } from '../../infra/pipeline/pipeline-app';
import type { PipelineStack } from '../../infra/pipeline/pipeline-stack';
import type { StoreOrdersStack } from '../../infra/stack';

export interface SynthesisedStage {
  stage: StageName;
  stack: StoreOrdersStack;
  template: Template;
}

export interface Synthesised {
  stages: SynthesisedStage[];
  account: { stack: ApiGatewayAccountStack; template: Template };
  /** Synthesised as `cdk synth -c githubRepository=<TEST_REPOSITORY>` would. */
  pipeline: { stack: PipelineStack; template: Template };
  assemblyDir: string;
}

/** The context `cdk synth` runs with: the feature flags in cdk.json. */
const CDK_JSON_CONTEXT = (
  JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'cdk.json'), 'utf8')) as { context: Record<string, unknown> }
).context;

/**
 * An app with the context `cdk synth` gets from cdk.json, validated by CDK's built-in CloudFormation
 * validation as in `cdk synth` (its engine costs about 10 s of CPU to start, once per test file).
 * Asset bundling (esbuild, seconds per synth) is off unless asked for: only the shared synthesis
 * bundles; the variant apps are read as templates.
 */
export function testApp(options: { bundling?: boolean; context?: Record<string, unknown> } = {}): App {
  return new App({
    context: {
      ...CDK_JSON_CONTEXT,
      ...(options.bundling ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...options.context,
    },
    builtinCloudFormationValidation: true,
  });
}

/** The repository the shared synthesis's pipeline stack trusts. */
export const TEST_REPOSITORY = 'example-org/store-orders-api';

let shared: Synthesised | undefined;

/**
 * Both stages, synthesised the way `cdk synth` does (same builder, same context, cdk-nag, CDK's
 * template validation, the functions' assets bundled), once per test file and shared: the tests
 * only read it. One synthesis serves the template specs and the bundle spec alike, so the file
 * that runs them pays for aws-cdk-lib, cdk-nag, the validation engine and esbuild once.
 */
export function synthesiseStages(): Synthesised {
  shared ??= synthesise();
  return shared;
}

/** The stage stacks of the shared synthesis, by stage name. */
export function stageStacks(): Record<StageName, StoreOrdersStack> {
  const { stages } = synthesiseStages();
  return Object.fromEntries(stages.map(({ stage, stack }) => [stage, stack])) as Record<StageName, StoreOrdersStack>;
}

function synthesise(): Synthesised {
  const app = testApp({ bundling: true, context: { [GITHUB_REPOSITORY_CONTEXT]: TEST_REPOSITORY } });
  // No alarm topic in the environment, as on a laptop: prod's alarms notify nobody until deployed with one.
  const { account, stages } = addServiceStacks(app, {});
  const pipeline = addPipelineStack(app);
  if (!account) throw new Error('The default synthesis has an account stack');
  if (!pipeline) throw new Error('The shared synthesis has a pipeline stack');
  const assembly = app.synth();
  return {
    assemblyDir: assembly.directory,
    account: { stack: account, template: Template.fromStack(account) },
    pipeline: { stack: pipeline, template: Template.fromStack(pipeline) },
    stages: STAGE_NAMES.map((stage) => ({ stage, stack: stages[stage], template: Template.fromStack(stages[stage]) })),
  };
}

/**
 * The errors or warnings the synthesis recorded on `stack` whose text matches `pattern`, as
 * `path: text` (cdk-nag reports its findings so). Read from the assembly the app made:
 * Annotations.fromStack would synthesise the whole app again (cdk-nag and the template validation
 * included) on every call.
 */
export function synthesisMessages(stack: Stack, level: 'error' | 'warning', pattern: string): string[] {
  const stage = Stage.of(stack);
  if (!stage) throw new Error(`${stack.stackName} belongs to no app`);
  return stage
    .synth()
    .getStackArtifact(stack.artifactId)
    .messages.filter((m) => m.level === level && new RegExp(pattern).test(String(m.entry.data)))
    .map((m) => `${m.id}: ${String(m.entry.data)}`);
}

/** The logical id CloudFormation knows a construct by (its L1 for an L2). */
export function logicalId(construct: IConstruct): string {
  const l1 = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(l1);
}

export function ref(construct: IConstruct): { Ref: string } {
  return { Ref: logicalId(construct) };
}

export function arnOf(construct: IConstruct): { 'Fn::GetAtt': [string, string] } {
  return { 'Fn::GetAtt': [logicalId(construct), 'Arn'] };
}

/** The one resource of a type matching the predicate, with its logical id. */
export function onlyResource(
  template: Template,
  type: string,
  props: Record<string, unknown>,
): { id: string; resource: { Properties: Record<string, unknown> } & Record<string, unknown> } {
  const found = Object.entries(template.findResources(type, { Properties: props }));
  if (found.length !== 1)
    throw new Error(`Expected one ${type} matching ${JSON.stringify(props)}, found ${found.length}`);
  const [id, resource] = found[0] as [string, { Properties: Record<string, unknown> }];
  return { id, resource };
}

export function stageNamed(synthesised: Synthesised, stage: StageName): SynthesisedStage {
  const found = synthesised.stages.find((s) => s.stage === stage);
  if (!found) throw new Error(`No ${stage} stack was synthesised`);
  return found;
}
