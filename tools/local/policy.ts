import type { PolicyDocument, Statement } from 'aws-lambda';

function resources(statement: Statement): string[] {
  const value = (statement as { Resource?: string | string[] }).Resource;
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function matches(pattern: string, arn: string): boolean {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`).test(arn);
}

/** IAM evaluation as API Gateway applies it to an authorizer policy: an explicit Deny wins. */
export function policyAllows(policy: PolicyDocument, arn: string): boolean {
  const applies = (s: Statement) => resources(s).some((r) => matches(r, arn));
  if (policy.Statement.some((s) => s.Effect === 'Deny' && applies(s))) return false;
  return policy.Statement.some((s) => s.Effect === 'Allow' && applies(s));
}
