// Read on its own, before any stack is built, as the other context flags are: a wrong flag is one line.
import type { Construct } from 'constructs';
import { isStageName, STAGE_NAMES, type StageName } from '../../lib/contract/deployment';
import { ContextFlagError } from '../cloudwatch-role-mode';

/**
 * `-c accountStages=prod` on the pipeline stack of an account that holds only prod (the layout AWS
 * recommends: one account per stage): the stack then makes that stage's deploy role, execution
 * policy and permissions boundary only, and its diff and lookup roles read that stage only.
 * Without it, the account holds every stage (`staging,prod`), each still apart from the others.
 */
export const ACCOUNT_STAGES_CONTEXT = 'accountStages';

/** The stages this account holds, in STAGE_NAMES order; anything but a list of distinct stages is refused. */
export function accountStages(scope: Construct): readonly StageName[] {
  const value: unknown = scope.node.tryGetContext(ACCOUNT_STAGES_CONTEXT);
  if (value === undefined) return STAGE_NAMES;
  const names = typeof value === 'string' ? value.split(',').map((name) => name.trim()) : [];
  if (names.length > 0 && names.every(isStageName) && new Set(names).size === names.length) {
    return STAGE_NAMES.filter((stage) => names.includes(stage));
  }
  throw new ContextFlagError(
    `-c ${ACCOUNT_STAGES_CONTEXT}=${String(value)} is not a list of stages: use -c ${ACCOUNT_STAGES_CONTEXT}=<stage>[,<stage>] with ${STAGE_NAMES.join(', ')}, e.g. -c ${ACCOUNT_STAGES_CONTEXT}=prod.`,
  );
}
