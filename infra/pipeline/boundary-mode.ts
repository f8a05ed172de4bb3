// Read on its own, before any stack is built, as the other context flags are: a wrong flag is one line.
import type { Construct } from 'constructs';
import { ContextFlagError } from '../cloudwatch-role-mode';

/**
 * `-c permissionsBoundary=none` leaves the stage stacks' roles without their stage's permissions
 * boundary: only for an account deployed by hand with bootstraps that keep AdministratorAccess,
 * where no `StoreOrders-pipeline` stack (which creates the boundaries) exists. `pipeline` (the
 * default) gives every role of a stage its stage's boundary, which the stage's CloudFormation
 * execution policy requires.
 */
export const PERMISSIONS_BOUNDARY_CONTEXT = 'permissionsBoundary';
export type PermissionsBoundaryMode = 'pipeline' | 'none';

export function permissionsBoundaryMode(scope: Construct): PermissionsBoundaryMode {
  const value: unknown = scope.node.tryGetContext(PERMISSIONS_BOUNDARY_CONTEXT);
  if (value === undefined || value === 'pipeline') return 'pipeline';
  if (value === 'none') return 'none';
  throw new ContextFlagError(
    `-c ${PERMISSIONS_BOUNDARY_CONTEXT}=${String(value)} is not a mode: use -c ${PERMISSIONS_BOUNDARY_CONTEXT}=pipeline or -c ${PERMISSIONS_BOUNDARY_CONTEXT}=none.`,
  );
}
