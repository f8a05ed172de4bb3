// `npm run deploy|diff -- <stage>`: the usage check, then the preflight, then cdk. Everything it
// reaches is injected, so tests run it without AWS and without starting cdk.
import { errorMessage, EXIT_FAILURE, EXIT_USAGE, UsageError } from '../shared/errors';
import { cdkArguments } from './args';
import { preflight, type AccountFacts } from './preflight';

export interface DeployDeps {
  facts(): AccountFacts;
  /** The stages' list-orders reservations (infra/stages.ts). */
  reservations(): Promise<readonly number[]>;
  /** Runs the project's cdk with these arguments; its exit status. */
  cdk(args: string[]): number;
  err(line: string): void;
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
  const problem = await preflight(deps.facts(), await deps.reservations());
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
