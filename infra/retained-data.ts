// Prod's data outlives its stack: its tables and secrets are retained when the stack is deleted. A
// new stack takes them back by CloudFormation resource import (docs/operations.md#a-new-stack-takes-the-retained-data-back),
// which needs each one's logical id in the new template and its physical id. These tags carry both
// on the resource itself, so the resources can be found, and mapped, once the stack that made them
// is gone (CloudFormation's own aws:cloudformation:* tags reach some resource types only).
import { Stack, Tags, type CfnResource } from 'aws-cdk-lib/core';
import type { IConstruct } from 'constructs';

export const RETAKE_TAGS = { stack: 'store-orders:stack', logicalId: 'store-orders:logical-id' } as const;

/** Tags each resource (an L2 construct whose default child is taggable) with its stack and logical id. */
export function tagRetainedData(resources: readonly IConstruct[]): void {
  for (const resource of resources) {
    const stack = Stack.of(resource);
    Tags.of(resource).add(RETAKE_TAGS.stack, stack.stackName);
    Tags.of(resource).add(RETAKE_TAGS.logicalId, stack.getLogicalId(resource.node.defaultChild as CfnResource));
  }
}
