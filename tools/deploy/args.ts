// What `npm run deploy -- <stage>` and `npm run diff -- <stage>` hand to the CDK command line: the
// stage picks its stack (lib/contract/deployment.ts names it), anything after the stage goes to cdk as is.
import { ACCOUNT_STACK_NAME, isStageName, stackNameFor, STAGE_NAMES } from '../../lib/contract/deployment';
import { UsageError } from '../shared/errors';

export const CDK_COMMANDS = ['deploy', 'diff'] as const;
export type CdkCommand = (typeof CDK_COMMANDS)[number];

export function usage(command: CdkCommand): string {
  return `Usage: npm run ${command} -- ${STAGE_NAMES.join('|')} [cdk ${command} options]`;
}

/**
 * deploy: the stage's stack, after the account stack it depends on (cdk deploys dependencies first).
 * diff: both stacks, as a deploy of the stage would change them.
 */
export function cdkArguments(command: string | undefined, argv: readonly string[]): string[] {
  if (!(CDK_COMMANDS as readonly (string | undefined)[]).includes(command)) {
    throw new UsageError(`the command must be one of ${CDK_COMMANDS.join(', ')}`);
  }
  const cdkCommand = command as CdkCommand;
  const [stage, ...rest] = argv;
  if (!isStageName(stage)) {
    const given = stage === undefined ? 'no stage given' : `unknown stage ${JSON.stringify(stage)}`;
    throw new UsageError(`${given}: ${usage(cdkCommand)}`);
  }
  const stacks = cdkCommand === 'diff' ? [ACCOUNT_STACK_NAME, stackNameFor(stage)] : [stackNameFor(stage)];
  return [cdkCommand, ...stacks, '--no-notices', ...rest];
}
