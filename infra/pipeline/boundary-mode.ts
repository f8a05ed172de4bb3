// Read on its own, before any stack is built, as the other context flags are: a wrong flag is one line.
import type { Construct } from 'constructs';
import { ContextFlagError } from '../cloudwatch-role-mode';

/**
 * `-c permissionsBoundary=none` leaves the service stacks' roles without the pipeline's permissions
 * boundary: only for an account deployed by hand with the bootstrap's AdministratorAccess, where no
 * `StoreOrders-pipeline` stack (which creates the boundary) exists. `pipeline` (the default) gives
 * every role the boundary, which the pipeline's CloudFormation execution role requires.
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
