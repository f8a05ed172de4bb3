import type { StageName } from '../../lib/contract/deployment';
import { shownWords } from '../shared/shown-input';
import { OPTION_NAMES, parseCommandLine } from './args';
import { npmTookOptionMessage } from '../shared/npm-options';
import {
  AdminFailure,
  errorMessage,
  EXIT_FAILURE,
  EXIT_INTERRUPTED,
  EXIT_OK,
  EXIT_USAGE,
  isMissingRegion,
  isMissingTable,
  isNotDynamo,
  Interrupted,
  isUnreachable,
  missingCredentialsMessage,
  UsageError,
} from '../shared/errors';
import type { Output } from '../shared/output';
import type { AdminTarget } from './target';
import { USAGE } from './usage';
import { givenClock } from '../shared/aws-time';

/** Everything a command touches, injected so tests run it in-process against their own tables. */
export interface AdminDeps {
  out: Output;
  /** The local stack, or the tables the environment names. */
  local(): AdminTarget;
  /** A deployed stage, from its CloudFormation stack outputs. */
  stage(name: StageName): Promise<AdminTarget>;
  /** Tests: the time commands decide by, instead of the target's AWS time. */
  now?: () => Date;
  /** Where npm leaves options it took for itself (npm_config_*); the process's own in the CLI. */
  env?: NodeJS.ProcessEnv;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
}

/** An expected failure's message, with what to do about it; undefined for an unexpected error. */
function failureMessage(error: unknown, target: AdminTarget | undefined): string | undefined {
  const where = target?.label ?? 'AWS';
  // Before a target is open, only a stage's CloudFormation lookup talks to anything.
  const hint = ` ${target?.unreachableHint ?? 'Check your network, AWS credentials and region.'}`;
  if (error instanceof AdminFailure) {
    const { cause } = error;
    return cause !== undefined && (isUnreachable(cause) || isMissingTable(cause))
      ? `${error.message}${hint}`
      : error.message;
  }
  if (isUnreachable(error)) return `Cannot reach ${where} (${errorMessage(error)}).${hint}`;
  if (isNotDynamo(error)) {
    return (
      `${where} answered like a different server, not DynamoDB (${errorMessage(error)}). Point DYNAMODB_ENDPOINT ` +
      "or DYNAMODB_PORT at the DynamoDB endpoint npm start prints, not at the API's port."
    );
  }
  if (isMissingTable(error)) return `A table of ${where} does not exist (${errorMessage(error)}).${hint}`;
  return missingCredentialsMessage(error);
}

/** Runs one command line; returns the exit status. Expected errors are messages, never stack traces. */
export async function runAdmin(argv: readonly string[], deps: AdminDeps): Promise<number> {
  let target: AdminTarget | undefined;
  try {
    const tookOption = npmTookOptionMessage('admin', OPTION_NAMES, argv, deps.env ?? {});
    if (tookOption !== undefined) throw new UsageError(tookOption);
    const line = parseCommandLine(argv);
    if (line.help) {
      deps.out.out(USAGE);
      return EXIT_OK;
    }
    target = line.stage ? await deps.stage(line.stage) : deps.local();
    const fixed = deps.now;
    await line.run({
      target,
      out: deps.out,
      clock: fixed ? givenClock(() => fixed().getTime()) : target.clock,
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof Interrupted) {
      deps.out.err(error.message);
      return EXIT_INTERRUPTED;
    }
    if (error instanceof UsageError) {
      deps.out.err(`Error: ${error.message} (npm run admin -- --help lists the commands)`);
      return EXIT_USAGE;
    }
    // A setting the user must give, like a command-line mistake.
    if (isMissingRegion(error)) {
      deps.out.err('Error: No AWS region is set: set AWS_REGION, or a region in your AWS profile, for --stage');
      return EXIT_USAGE;
    }
    // An unexpected error's message may quote input whole (a host name, a value): its long words are shortened.
    deps.out.err(`Error: ${failureMessage(error, target) ?? `unexpected failure: ${shownWords(errorMessage(error))}`}`);
    return EXIT_FAILURE;
  } finally {
    target?.close();
  }
}
