// The local stack gives each function exactly the memory and timeout the stack deploys: the Lambda
// context the local gateway builds is compared with lib/contract/deployment.ts and with the synthesised
// template. Bundling is off: only the function settings are read here.

import { Template } from 'aws-cdk-lib/assertions';
import { FUNCTIONS, STAGE_NAMES, type EntryId } from '../../lib/contract/deployment';
import { lambdaContext } from '../../tools/local/proxy-event';
import { logicalId, stageStacks } from './synth';

const IDS = Object.keys(FUNCTIONS) as EntryId[];
const FROZEN_NOW = Date.UTC(2026, 10, 22, 12, 0, 0);

const stacks = stageStacks();
const templates = Object.fromEntries(STAGE_NAMES.map((stage) => [stage, Template.fromStack(stacks[stage])]));

/** The context the local gateway builds, read at the instant it is made. */
function localSettings(id: EntryId): { memoryMb: number; timeoutSeconds: number } {
  jest.useFakeTimers({ now: FROZEN_NOW });
  try {
    const context = lambdaContext(id);
    return { memoryMb: Number(context.memoryLimitInMB), timeoutSeconds: context.getRemainingTimeInMillis() / 1000 };
  } finally {
    jest.useRealTimers();
  }
}

test.each(IDS)('%s: the local context has the memory and timeout of lib/contract/deployment.ts', (id) => {
  expect(localSettings(id)).toEqual({ memoryMb: FUNCTIONS[id].memoryMb, timeoutSeconds: FUNCTIONS[id].timeoutSeconds });
});

describe.each(STAGE_NAMES)('%s', (stage) => {
  test.each(IDS)('%s: the local context has the MemorySize and Timeout the stack deploys', (id) => {
    const stack = stacks[stage];
    const resource = templates[stage]?.toJSON().Resources[logicalId(stack.functions[id].function)] as
      { Type: string; Properties: { MemorySize: number; Timeout: number } } | undefined;
    expect(resource?.Type).toBe('AWS::Lambda::Function');
    expect(localSettings(id)).toEqual({
      memoryMb: resource?.Properties.MemorySize,
      timeoutSeconds: resource?.Properties.Timeout,
    });
  });
});
