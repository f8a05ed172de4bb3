// Read on its own, before any stack is built, as the CloudWatch-role mode is: a wrong flag is one line.
import type { Construct } from 'constructs';
import { ContextFlagError } from '../cloudwatch-role-mode';

/**
 * The context flag naming the GitHub repository whose workflow may deploy
 * (`cdk deploy StoreOrders-pipeline -c githubRepository=<owner>/<repo>`): declared once, on the
 * command line of the one stack that uses it. Without it the pipeline stack is not synthesised.
 */
export const GITHUB_REPOSITORY_CONTEXT = 'githubRepository';

/** GitHub's owner and repository names: letters, digits, `-`, `_` and `.` (no `*` or `:` to widen a trust). */
const REPOSITORY_PATTERN = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;

/** `owner/repo`, or undefined when the flag is absent; anything else is refused with the fix. */
export function githubRepository(scope: Construct): string | undefined {
  const value: unknown = scope.node.tryGetContext(GITHUB_REPOSITORY_CONTEXT);
  if (value === undefined) return undefined;
  if (typeof value === 'string' && REPOSITORY_PATTERN.test(value)) return value;
  throw new ContextFlagError(
    `-c ${GITHUB_REPOSITORY_CONTEXT}=${String(value)} is not a GitHub repository: use -c ${GITHUB_REPOSITORY_CONTEXT}=<owner>/<repo>, e.g. -c ${GITHUB_REPOSITORY_CONTEXT}=acme/store-orders-api.`,
  );
}

/**
 * `-c githubOidcProvider=existing` where the account already has GitHub's OIDC provider (one per
 * URL per account, often made by another project): the stack then trusts that one instead of
 * creating its own. `create` (the default) makes it.
 */
export const GITHUB_OIDC_PROVIDER_CONTEXT = 'githubOidcProvider';
export type OidcProviderMode = 'create' | 'existing';

export function oidcProviderMode(scope: Construct): OidcProviderMode {
  const value: unknown = scope.node.tryGetContext(GITHUB_OIDC_PROVIDER_CONTEXT);
  if (value === undefined || value === 'create') return 'create';
  if (value === 'existing') return 'existing';
  throw new ContextFlagError(
    `-c ${GITHUB_OIDC_PROVIDER_CONTEXT}=${String(value)} is not a mode: use -c ${GITHUB_OIDC_PROVIDER_CONTEXT}=create or -c ${GITHUB_OIDC_PROVIDER_CONTEXT}=existing.`,
  );
}
