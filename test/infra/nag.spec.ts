import { stageNamed, synthesiseStages, synthesisMessages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

interface NagSuppression {
  id: string;
  reason: string;
  applies_to?: unknown[];
}

/** Suppressions as cdk-nag records them in the template, per resource. */
function suppressions(
  template: ReturnType<Synthesised['stages'][number]['template']['toJSON']>,
): [string, NagSuppression][] {
  const out: [string, NagSuppression][] = [];
  const resources = (template.Resources ?? {}) as Record<
    string,
    { Metadata?: { cdk_nag?: { rules_to_suppress?: NagSuppression[] } } }
  >;
  for (const [id, resource] of Object.entries(resources)) {
    for (const rule of resource.Metadata?.cdk_nag?.rules_to_suppress ?? []) out.push([id, rule]);
  }
  return out;
}

describe.each(['staging', 'prod'] as const)('cdk-nag on %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);

  test.each(['AwsSolutions-.*', 'Serverless-.*'])('%s reports no unexplained error or warning', (pack) => {
    expect(synthesisMessages(stage().stack, 'error', pack)).toEqual([]);
    expect(synthesisMessages(stage().stack, 'warning', pack)).toEqual([]);
  });

  test('no suppression covers the whole stack', () => {
    const template = stage().template.toJSON() as { Metadata?: Record<string, unknown> };
    expect(template.Metadata?.cdk_nag).toBeUndefined();
  });

  test('every suppression gives a specific reason', () => {
    const all = suppressions(stage().template.toJSON());
    expect(all.length).toBeGreaterThan(0);
    for (const [, rule] of all) {
      expect(rule.reason.length).toBeGreaterThan(40);
    }
  });

  test("wildcard IAM permissions are accepted only for X-Ray on the function and hook policies, and for the hooks' qualifiers", () => {
    const { template, stack } = stage();
    const iam5 = suppressions(template.toJSON()).filter(([, rule]) => rule.id === 'AwsSolutions-IAM5');
    const policyId = (role: { node: { findChild(id: string): { node: { defaultChild?: unknown } } } }) =>
      stack.getLogicalId(role.node.findChild('DefaultPolicy').node.defaultChild as never);
    const xrayPolicies = [...Object.values(stack.functions), ...Object.values(stack.releases.hooks)].map((fn) =>
      policyId(fn.role),
    );
    const codeDeployPolicy = policyId(stack.releases.role);
    expect(iam5.map(([id]) => id).sort()).toEqual([...xrayPolicies, codeDeployPolicy].sort());
    for (const [id, rule] of iam5) {
      if (id === codeDeployPolicy) {
        expect(rule.applies_to).toEqual([{ regex: expect.stringContaining('HookFunction') }]);
        expect(rule.reason).toMatch(/hook/);
      } else {
        expect(rule.applies_to).toEqual(['Resource::*']);
        expect(rule.reason).toMatch(/xray/);
        // dynamodb:ListStreams on "*" is explained, and accepted, for the stream's readers alone.
        const readers = [stack.functions['sync-watch'], stack.functions['webhook-fanout']].map((fn) =>
          policyId(fn.role),
        );
        expect(rule.reason.includes('ListStreams')).toBe(readers.includes(id));
      }
    }
  });
});

test('cdk-nag reports nothing unexplained on the account stack', () => {
  for (const pack of ['AwsSolutions-.*', 'Serverless-.*']) {
    expect(synthesisMessages(synthesised.account.stack, 'error', pack)).toEqual([]);
    expect(synthesisMessages(synthesised.account.stack, 'warning', pack)).toEqual([]);
  }
});
