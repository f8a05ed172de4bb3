// Template values as strings, so IAM assertions can read ARNs: pseudo parameters take fixed
// values, a reference to a resource becomes `<LogicalId>` or `<LogicalId.Attribute>`.

export const PSEUDO = {
  'AWS::Partition': 'aws',
  'AWS::Region': 'eu-west-1',
  'AWS::AccountId': '111111111111',
} as const;

export function rendered(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rendered);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value as Record<string, unknown>);
  const [only] = entries;
  if (entries.length === 1 && only) {
    const [key, arg] = only;
    if (key === 'Ref' && typeof arg === 'string') return PSEUDO[arg as keyof typeof PSEUDO] ?? `<${arg}>`;
    if (key === 'Fn::GetAtt' && Array.isArray(arg)) return `<${arg.join('.')}>`;
    if (key === 'Fn::Join' && Array.isArray(arg)) {
      const [separator, parts] = arg as [string, unknown[]];
      return parts.map((part) => String(rendered(part))).join(separator);
    }
  }
  return Object.fromEntries(entries.map(([key, inner]) => [key, rendered(inner)]));
}

export interface Statement {
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: string[];
  Principal?: Record<string, unknown>;
  Condition?: Record<string, Record<string, unknown>>;
}

const list = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : [String(value)]);

/** A policy document's statements, rendered, with Action and Resource always lists. */
export function statements(document: unknown): Statement[] {
  const { Statement: raw } = rendered(document) as { Statement: Record<string, unknown>[] };
  return raw.map((s) => ({
    ...(s as unknown as Statement),
    Action: list(s.Action),
    Resource: s.Resource === undefined ? [] : list(s.Resource),
  }));
}
