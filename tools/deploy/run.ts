// `npm run deploy|diff -- <stage>`: the usage check, then the preflight, then cdk. Everything it
// reaches is injected, so tests run it without AWS and without starting cdk. The stage picks its
// stack (lib/contract/deployment.ts names it); anything after the stage goes to cdk as is.
import {
  ACCOUNT_STACK_NAME,
  isStageName,
  stackNameFor,
  STAGE_NAMES,
  toolkitStackNameFor,
  type StageName,
} from '../../lib/contract/deployment';
import { errorMessage, EXIT_FAILURE, EXIT_USAGE, UsageError } from '../shared/errors';
import { notificationProblem } from './notification';
import { preflight, type AccountFacts } from './preflight';

export const CDK_COMMANDS = ['deploy', 'diff'] as const;
export type CdkCommand = (typeof CDK_COMMANDS)[number];

export function usage(command: CdkCommand): string {
  return `Usage: npm run ${command} -- ${STAGE_NAMES.join('|')} [cdk ${command} options]`;
}

/** deploy: the stage's stack alone, through its own bootstrap (the account stack is an administrator's); diff: both. */
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
  const alone = ['--exclusively', '--toolkit-stack-name', toolkitStackNameFor(stage)];
  const stacks = cdkCommand === 'diff' ? [ACCOUNT_STACK_NAME, stackNameFor(stage)] : [stackNameFor(stage), ...alone];
  return [cdkCommand, ...stacks, '--no-notices', ...rest];
}

export interface DeployDeps {
  facts(): AccountFacts;
  /** The stage's list-orders reservation (infra/stages.ts). */
  reservation(stage: StageName): number;
  /** Runs the project's cdk with these arguments; its exit status. */
  cdk(args: string[]): number;
  err(line: string): void;
  /** The environment cdk will synthesise with (the alarm topics). */
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

export async function runDeployCommand(argv: readonly string[], deps: DeployDeps): Promise<number> {
  let args: string[];
  try {
    args = cdkArguments(argv[0], argv.slice(1));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    deps.err(`Error: ${error.message}`);
    return EXIT_USAGE;
  }
  const stage = argv[1] as StageName;
  const problem =
    notificationProblem(stage, args, deps.env, deps.cwd) ??
    (await preflight(deps.facts(), stage, deps.reservation(stage), { canaryKey: args[0] === 'deploy' }));
  if (problem !== undefined) {
    deps.err(`Error: ${problem}`);
    return EXIT_FAILURE;
  }
  try {
    return deps.cdk(args);
  } catch (error) {
    deps.err(`Error: could not run cdk: ${errorMessage(error)}`);
    return EXIT_FAILURE;
  }
}
