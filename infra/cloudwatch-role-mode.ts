// Read before the stacks are built, and on its own: infra/app.ts refuses a wrong flag before it
// loads the stacks' modules.
import type { Construct } from 'constructs';

/**
 * The context flag (`cdk deploy -c apiGatewayCloudWatchRole=keep`) that says who owns API
 * Gateway's CloudWatch role in this account and Region: `create` (the default), the account stack
 * creates a role and sets it; `keep`, the account already has one (set by another project or by
 * hand) and the app leaves it alone: no account stack is synthesised.
 */
export const CLOUDWATCH_ROLE_CONTEXT = 'apiGatewayCloudWatchRole';
export const CLOUDWATCH_ROLE_MODES = ['create', 'keep'] as const;
export type CloudWatchRoleMode = (typeof CLOUDWATCH_ROLE_MODES)[number];

/** A mistake in the command line's context (`-c`), which the app reports as one line. */
export class ContextFlagError extends Error {}

/** The mode the app was synthesised with; anything but the two modes is refused, with the fix. */
export function cloudWatchRoleMode(scope: Construct): CloudWatchRoleMode {
  const value: unknown = scope.node.tryGetContext(CLOUDWATCH_ROLE_CONTEXT);
  if (value === undefined) return 'create';
  if (typeof value === 'string' && (CLOUDWATCH_ROLE_MODES as readonly string[]).includes(value)) {
    return value as CloudWatchRoleMode;
  }
  throw new ContextFlagError(
    `-c ${CLOUDWATCH_ROLE_CONTEXT}=${String(value)} is not a mode: use ${CLOUDWATCH_ROLE_MODES.map((m) => `-c ${CLOUDWATCH_ROLE_CONTEXT}=${m}`).join(' or ')}.`,
  );
}
