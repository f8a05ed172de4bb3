import { ROUTES, V2_ROUTES } from '../../lib/contract/routes';
import type { CfnElement } from 'aws-cdk-lib/core';
import { Match } from 'aws-cdk-lib/assertions';
import {
  CANARY_KEY_SECRET_OUTPUT,
  CANARY_KEY_SECRET_TAG,
  RELEASE_HOOK_TIMEOUT_SECONDS,
  type FunctionId,
} from '../../lib/contract/deployment';
import { ROLLBACK_ALARM_MINUTES, STAGES } from '../../infra/stages';
import { HOOK_ENV } from '../../infra/release-hook/handler';
import { SECRET_READ_ACTION } from '../../lib/contract/secrets';
import { STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { ROLLBACK_REFUSAL_RATE } from '../../infra/constructs/service-alarms';
import {
  AUTHORIZER_FAILED_MESSAGE,
  AUTHORIZER_VERSION_KEY,
  KEY_ACCEPTED_MESSAGE,
  KEY_REFUSED_MESSAGE,
} from '../../lib/edge/authorizer';
import { arnOf, logicalId, ref, stageNamed, synthesiseStages, type Synthesised } from './synth';

let synthesised: Synthesised;
beforeAll(() => {
  synthesised = synthesiseStages();
});

const FUNCTION_IDS: FunctionId[] = [
  'authorizer',
  'list-orders',
  'cancel-order',
  'get-pet',
  'list-orders-v2',
  'webhook-endpoints',
];

interface Resource {
  Type: string;
  Properties?: Record<string, unknown>;
  UpdatePolicy?: Record<string, unknown>;
}

/** Every resource of the template by logical id. */
function resources(template: { toJSON(): unknown }): Record<string, Resource> {
  return (template.toJSON() as { Resources: Record<string, Resource> }).Resources;
}

describe.each(['staging', 'prod'] as const)('releases of %s', (stageName) => {
  const stage = () => stageNamed(synthesised, stageName);
  const release = STAGES[stageName].release;

  test.each(FUNCTION_IDS)('%s is published as a version behind the alias live', (name) => {
    const { template, stack } = stage();
    const { function: fn, alias } = stack.functions[name];
    // The version's logical id is overridden with a hash of the function's settings, so it is read back resolved.
    const versionId = stack.resolve((fn.currentVersion.node.defaultChild as CfnElement).logicalId) as string;
    expect(resources(template)[versionId]).toMatchObject({
      Type: 'AWS::Lambda::Version',
      Properties: { FunctionName: ref(fn) },
    });
    expect(resources(template)[logicalId(alias)]).toMatchObject({
      Type: 'AWS::Lambda::Alias',
      Properties: {
        Name: 'live',
        FunctionName: ref(fn),
        FunctionVersion: { 'Fn::GetAtt': [versionId, 'Version'] },
      },
    });
  });

  test('each function has exactly one version and one alias', () => {
    const { template, stack } = stage();
    // The released functions', and those whose alias an event source mapping invokes: the sync
    // watch's and the webhook fan-out's (the orders stream), the delivery worker's (its queue); and
    // the index-lag canary's, whose alias its schedule invokes.
    const mapped = ['sync-watch', 'webhook-fanout', 'webhook-delivery', 'index-canary'];
    expect(Object.keys(stack.functions).sort()).toEqual([...FUNCTION_IDS, ...mapped].sort());
    template.resourceCountIs('AWS::Lambda::Version', FUNCTION_IDS.length + mapped.length);
    template.resourceCountIs('AWS::Lambda::Alias', FUNCTION_IDS.length + mapped.length);
  });

  test('no integration or authorizer invokes $LATEST or a function by its unqualified ARN', () => {
    const { template, stack } = stage();
    const all = resources(template);
    const uris = [
      ...Object.values(all)
        .filter((r) => r.Type === 'AWS::ApiGateway::Method')
        .map((r) => (r.Properties?.Integration as { Type: string; Uri?: unknown } | undefined) ?? { Type: 'NONE' })
        .filter((integration) => integration.Type === 'AWS_PROXY')
        .map((integration) => integration.Uri),
      ...Object.values(all)
        .filter((r) => r.Type === 'AWS::ApiGateway::Authorizer')
        .map((r) => r.Properties?.AuthorizerUri),
    ];
    // Every route, v1's and v2's, and each API's authorizer: none may slip through unchecked.
    expect(uris).toHaveLength(ROUTES.length + V2_ROUTES.length + stack.apis.length);
    const aliases = FUNCTION_IDS.map((name) => JSON.stringify(ref(stack.functions[name].alias)));
    for (const uri of uris) {
      const text = JSON.stringify(uri);
      expect(text).not.toContain('$LATEST');
      for (const name of FUNCTION_IDS) {
        const fn = stack.functions[name].function;
        expect(text).not.toContain(JSON.stringify(arnOf(fn)));
        expect(text).not.toContain(JSON.stringify(ref(fn)));
      }
      expect(aliases.some((alias) => text.includes(alias))).toBe(true);
    }
  });

  test('API Gateway may invoke the aliases only: every permission names an alias, one per route and the authorizer', () => {
    const { template, stack } = stage();
    const permissions = Object.values(template.findResources('AWS::Lambda::Permission'));
    // What each RestApi invokes: each route's function, from that route's method only, and the authorizer.
    const invoked: FunctionId[] = [ROUTES, V2_ROUTES].flatMap((routes) => [
      'authorizer' as const,
      ...routes.map((route) => route.function),
    ]);
    expect(permissions).toHaveLength(invoked.length);
    const targets = permissions.map((p) => JSON.stringify(p.Properties?.FunctionName)).sort();
    expect(targets).toEqual(invoked.map((name) => JSON.stringify(ref(stack.functions[name].alias))).sort());
    for (const permission of permissions) {
      expect(permission.Properties).toMatchObject({
        Action: 'lambda:InvokeFunction',
        Principal: 'apigateway.amazonaws.com',
        SourceArn: expect.anything(),
      });
    }
  });

  test('one CodeDeploy application for the stage, one deployment group per function', () => {
    const { template } = stage();
    template.resourceCountIs('AWS::CodeDeploy::Application', 1);
    template.hasResourceProperties('AWS::CodeDeploy::Application', {
      ApplicationName: `store-orders-${stageName}`,
      ComputePlatform: 'Lambda',
    });
    template.resourceCountIs('AWS::CodeDeploy::DeploymentGroup', FUNCTION_IDS.length);
  });

  test(`shifts ${release.percent}% of the calls for ${release.minutes} minutes, then the rest; no group shifts all at once`, () => {
    const { template, stack } = stage();
    template.resourceCountIs('AWS::CodeDeploy::DeploymentConfig', 1);
    template.hasResourceProperties('AWS::CodeDeploy::DeploymentConfig', {
      ComputePlatform: 'Lambda',
      TrafficRoutingConfig: {
        Type: 'TimeBasedCanary',
        TimeBasedCanary: { CanaryPercentage: release.percent, CanaryInterval: release.minutes },
      },
    });
    const canary = { Ref: Object.keys(template.findResources('AWS::CodeDeploy::DeploymentConfig'))[0] };
    const groups = Object.values(template.findResources('AWS::CodeDeploy::DeploymentGroup'));
    expect(groups).toHaveLength(FUNCTION_IDS.length);
    for (const group of groups) expect(group.Properties?.DeploymentConfigName).toEqual(canary);
    for (const name of FUNCTION_IDS) {
      expect(resources(template)[logicalId(stack.releases.groups[name])]?.Properties?.DeploymentConfigName).toEqual(
        canary,
      );
    }
  });

  test.each(FUNCTION_IDS)(
    '%s: CloudFormation hands its alias to its deployment group, which rolls back on its alarms',
    (name) => {
      const { template, stack } = stage();
      const all = resources(template);
      const group = stack.releases.groups[name];
      expect(all[logicalId(stack.functions[name].alias)]?.UpdatePolicy).toEqual({
        CodeDeployLambdaAliasUpdate: {
          ApplicationName: ref(stack.releases.application),
          DeploymentGroupName: ref(group),
          BeforeAllowTrafficHook: ref(stack.releases.hooks[name].function),
        },
      });
      const rollbackAlarms = stack.alarms.rollback[name];
      // Errors and latency; the authorizer's refusal rate besides.
      expect(rollbackAlarms).toHaveLength(name === 'authorizer' ? 3 : 2);
      expect(all[logicalId(group)]?.Properties).toMatchObject({
        ApplicationName: ref(stack.releases.application),
        ServiceRoleArn: arnOf(stack.releases.role),
        AlarmConfiguration: { Enabled: true, Alarms: rollbackAlarms.map((alarm) => ({ Name: ref(alarm) })) },
        AutoRollbackConfiguration: {
          Enabled: true,
          Events: expect.arrayContaining(['DEPLOYMENT_FAILURE', 'DEPLOYMENT_STOP_ON_ALARM']),
        },
      });
    },
  );

  test('CodeDeploy works with the AWS policy for Lambda deployments, and may invoke the hooks besides', () => {
    const { template, stack } = stage();
    template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'codedeploy.amazonaws.com' } })],
      }),
      ManagedPolicyArns: [
        {
          'Fn::Join': [
            '',
            ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSCodeDeployRoleForLambdaLimited'],
          ],
        },
      ],
    });
    const policies = Object.values(
      template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(stack.releases.role)] } }),
    );
    const statements = policies.flatMap(
      (p) =>
        (p.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }).PolicyDocument
          .Statement,
    );
    expect(statements.map((st) => st.Action)).toEqual(statements.map(() => 'lambda:InvokeFunction'));
    const invoked = JSON.stringify(statements.map((st) => st.Resource));
    for (const name of FUNCTION_IDS)
      expect(invoked).toContain(JSON.stringify(arnOf(stack.releases.hooks[name].function)));
    for (const name of FUNCTION_IDS) expect(invoked).not.toContain(JSON.stringify(ref(stack.functions[name].function)));
  });

  test.each(FUNCTION_IDS)("%s's pre-traffic hook may invoke the new version alone, and report its result", (name) => {
    const { template, stack } = stage();
    const hook = stack.releases.hooks[name];
    const version = stack.functions[name].alias.version;
    const versionId = stack.resolve((version.node.defaultChild as CfnElement).logicalId) as string;
    // The authorizer's hook reads the stage's canary key besides; no other hook knows of it.
    const canary = name === 'authorizer' ? { [HOOK_ENV.canaryKeySecret]: ref(stack.releases.canaryKey) } : {};
    const properties = resources(template)[logicalId(hook.function)]?.Properties as {
      Environment: unknown;
      Timeout: unknown;
    };
    // The timeout the hook derives its calls' bounds from (HOOK_BOUNDS) is the one deployed.
    expect(properties.Timeout).toBe(RELEASE_HOOK_TIMEOUT_SECONDS);
    expect(properties.Environment).toEqual({
      Variables: {
        [HOOK_ENV.functionId]: name,
        [HOOK_ENV.versionArn]: { Ref: versionId },
        POWERTOOLS_SERVICE_NAME: expect.any(String),
        [STAGE_ENV_VAR]: stageName,
        ...canary,
      },
    });
    const statements = Object.values(
      template.findResources('AWS::IAM::Policy', { Properties: { Roles: [ref(hook.role)] } }),
    ).flatMap(
      (p) =>
        (p.Properties as { PolicyDocument: { Statement: { Action: unknown; Resource: unknown }[] } }).PolicyDocument
          .Statement,
    );
    const byAction = (action: string) =>
      statements.filter((st) => (Array.isArray(st.Action) ? st.Action : [st.Action]).includes(action));
    expect(byAction('lambda:InvokeFunction').map((st) => st.Resource)).toEqual([{ Ref: versionId }]);
    // Its report: on "*", as the Service Authorization Reference gives the action no resource
    // type (so CDK's own grant on the group's ARN, kept, may match nothing).
    const report = byAction('codedeploy:PutLifecycleEventHookExecutionStatus');
    expect(report.map((st) => st.Resource)).toContainEqual('*');
    const reportTo = JSON.stringify(report.map((st) => st.Resource));
    expect(reportTo).toContain(JSON.stringify(ref(stack.releases.application)));
    expect(reportTo).toContain(JSON.stringify(ref(stack.releases.groups[name])));
    const reads = byAction(SECRET_READ_ACTION);
    expect(reads.map((st) => [st.Action, st.Resource])).toEqual(
      name === 'authorizer' ? [[SECRET_READ_ACTION, ref(stack.releases.canaryKey)]] : [],
    );
    // Nothing else but its logs and tracing: no table, no other function.
    const other = statements.filter(
      (st) =>
        !byAction('lambda:InvokeFunction').includes(st) &&
        !report.includes(st) &&
        !reads.includes(st) &&
        !JSON.stringify(st.Action).match(/"(logs|xray):/),
    );
    expect(other).toEqual([]);
  });

  test("the dashboard shows each function's calls and errors by version, and the rollback alarms", () => {
    const { template, stack } = stage();
    const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
    const body = (dashboards[0]?.Properties as { DashboardBody: { 'Fn::Join': [string, unknown[]] } }).DashboardBody;
    // References become <<logical id>> (or <<logical id.Arn>>), so the body can be searched as text.
    const text = body['Fn::Join'][1]
      .map((part) => {
        if (typeof part === 'string') return part;
        const { Ref, 'Fn::GetAtt': getAtt } = part as { Ref?: string; 'Fn::GetAtt'?: string[] };
        return `<<${Ref ?? getAtt?.join('.') ?? '?'}>>`;
      })
      .join('');
    for (const name of FUNCTION_IDS) {
      const fn = logicalId(stack.functions[name].function);
      for (const metric of ['Invocations', 'Errors']) {
        expect(text).toContain(
          `SEARCH('{AWS/Lambda,ExecutedVersion,FunctionName,Resource} MetricName=\\"${metric}\\" FunctionName=\\"<<${fn}>>\\"', 'Sum', 60)`,
        );
      }
      for (const alarm of stack.alarms.rollback[name]) expect(text).toContain(`<<${logicalId(alarm)}.Arn>>`);
    }
  });

  describe('rollback alarms', () => {
    const config = STAGES[stageName].alarms;
    // The new version's own invocations through the alias: the version the stack publishes.
    const newVersionDimensions = (name: FunctionId) => {
      const { stack } = stage();
      const fn = ref(stack.functions[name].function);
      const version = stack.functions[name].alias.version;
      const versionId = stack.resolve((version.node.defaultChild as CfnElement).logicalId) as string;
      return [
        { Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } },
        { Name: 'FunctionName', Value: fn },
        { Name: 'Resource', Value: { 'Fn::Join': ['', [fn, ':live']] } },
      ];
    };
    const alarm = (name: FunctionId, index: 0 | 1 | 2) => {
      const { template, stack } = stage();
      const found = stack.alarms.rollback[name][index];
      if (!found) throw new Error(`no rollback alarm ${index} for ${name}`);
      return resources(template)[logicalId(found)]?.Properties ?? {};
    };
    // Two breaching one-minute periods: they can fire within the canary's minutes.
    const fastMath = {
      EvaluationPeriods: ROLLBACK_ALARM_MINUTES,
      DatapointsToAlarm: ROLLBACK_ALARM_MINUTES,
      TreatMissingData: 'notBreaching',
    };
    const fast = { ...fastMath, Period: 60 };

    // CloudWatch keeps an alarm's state through an update: a version's alarms must be new alarms
    // (a new name replaces the alarm), or a fix would inherit its failing predecessor's ALARM.
    test.each(FUNCTION_IDS)(
      'each rollback alarm of %s is named for the version it watches, so a new version gets new alarms',
      (name) => {
        const { stack, template } = stage();
        const versionId = stack.resolve(
          (stack.functions[name].alias.version.node.defaultChild as CfnElement).logicalId,
        ) as string;
        const names = stack.alarms.rollback[name].map((a) =>
          JSON.stringify(resources(template)[logicalId(a)]?.Properties?.AlarmName),
        );
        for (const alarmName of names) {
          expect(alarmName).toContain(JSON.stringify({ 'Fn::GetAtt': [versionId, 'Version'] }));
          expect(alarmName).toContain(stack.stackName);
        }
        expect(new Set(names).size).toBe(names.length);
      },
    );

    test.each(FUNCTION_IDS)(
      'the alias of %s is updated (the traffic shift starts) after its deployment group and its new alarms',
      (name) => {
        const { template, stack } = stage();
        const dependsOn = (resources(template)[logicalId(stack.functions[name].alias)] as { DependsOn?: string[] })
          .DependsOn;
        expect(dependsOn).toEqual(
          expect.arrayContaining([
            logicalId(stack.releases.groups[name]),
            ...stack.alarms.rollback[name].map((a) => logicalId(a)),
          ]),
        );
      },
    );

    test.each(['list-orders', 'cancel-order'] as const)(
      'the error rate of the new version of %s, against the stage 5XX rate',
      (name) => {
        const properties = alarm(name, 0);
        expect(properties).toMatchObject({ ...fastMath, Threshold: config.serverErrorRate });
        const metrics = properties.Metrics as { Id: string; Expression?: string; MetricStat?: unknown }[];
        expect(metrics.find((m) => m.Expression)?.Expression).toBe('IF(invocations > 0, errors / invocations, 0)');
        for (const [id, metricName] of [
          ['errors', 'Errors'],
          ['invocations', 'Invocations'],
        ] as const) {
          expect(metrics.find((m) => m.Id === id)?.MetricStat).toEqual({
            Metric: { Namespace: 'AWS/Lambda', MetricName: metricName, Dimensions: newVersionDimensions(name) },
            Period: 60,
            Stat: 'Sum',
          });
        }
      },
    );

    test("the authorizer's errors are the new version's failures to judge a key, never Lambda's Errors (refused keys count there)", () => {
      const { template, stack } = stage();
      const version = stack.functions.authorizer.alias.version;
      const versionId = stack.resolve((version.node.defaultChild as CfnElement).logicalId) as string;
      const metric = { MetricNamespace: `store-orders/${stageName}`, MetricName: 'AuthorizerFailuresByVersion' };
      expect(alarm('authorizer', 0)).toMatchObject({
        ...fast,
        Namespace: metric.MetricNamespace,
        MetricName: metric.MetricName,
        Dimensions: [{ Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } }],
        Statistic: 'Sum',
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
      // The failure lines, counted by the version each names (lib/edge/authorizer-handler.ts logs it).
      template.hasResourceProperties('AWS::Logs::MetricFilter', {
        LogGroupName: ref(stack.functions.authorizer.logGroup),
        FilterPattern: `{ ($.level = "ERROR") && ($.message = "${AUTHORIZER_FAILED_MESSAGE}") }`,
        MetricTransformations: [
          {
            ...metric,
            MetricValue: '1',
            Dimensions: [{ Key: 'ExecutedVersion', Value: `$.${AUTHORIZER_VERSION_KEY}` }],
          },
        ],
      });
      const authorizer = JSON.stringify(ref(stack.functions.authorizer.function));
      for (const [, a] of Object.entries(template.findResources('AWS::CloudWatch::Alarm'))) {
        const text = JSON.stringify(a.Properties);
        if (text.includes(authorizer)) expect(text).not.toContain('"Errors"');
      }
    });

    test("the authorizer's refusal rate, of the new version alone, from its decision lines", () => {
      const { template, stack } = stage();
      const version = stack.functions.authorizer.alias.version;
      const versionId = stack.resolve((version.node.defaultChild as CfnElement).logicalId) as string;
      const namespace = `store-orders/${stageName}`;
      const properties = alarm('authorizer', 2);
      expect(properties).toMatchObject({ ...fastMath, Threshold: ROLLBACK_REFUSAL_RATE });
      const metrics = properties.Metrics as { Id: string; Expression?: string; MetricStat?: unknown }[];
      expect(metrics.find((m) => m.Expression)?.Expression).toBe('IF(decisions > 0, refusals / decisions, 0)');
      const filters: Record<string, [string, string[]]> = {
        decisions: ['AuthorizerDecisionsByVersion', [KEY_ACCEPTED_MESSAGE, KEY_REFUSED_MESSAGE]],
        refusals: ['AuthorizerRefusalsByVersion', [KEY_REFUSED_MESSAGE]],
      };
      for (const [id, [metricName, messages]] of Object.entries(filters)) {
        expect(metrics.find((m) => m.Id === id)?.MetricStat).toEqual({
          Metric: {
            Namespace: namespace,
            MetricName: metricName,
            Dimensions: [{ Name: 'ExecutedVersion', Value: { 'Fn::GetAtt': [versionId, 'Version'] } }],
          },
          Period: 60,
          Stat: 'Sum',
        });
        template.hasResourceProperties('AWS::Logs::MetricFilter', {
          LogGroupName: ref(stack.functions.authorizer.logGroup),
          FilterPattern:
            messages.length === 1
              ? `{ $.message = "${messages[0]}" }`
              : `{ ${messages.map((m) => `($.message = "${m}")`).join(' || ')} }`,
          MetricTransformations: [
            {
              MetricNamespace: namespace,
              MetricName: metricName,
              MetricValue: '1',
              Dimensions: [{ Key: 'ExecutedVersion', Value: `$.${AUTHORIZER_VERSION_KEY}` }],
            },
          ],
        });
      }
    });

    test("the stage's canary key secret is a stack output, tagged with its stage, for the command that stores the key", () => {
      const { template, stack } = stage();
      template.hasOutput(CANARY_KEY_SECRET_OUTPUT, { Value: ref(stack.releases.canaryKey) });
      // The deploy role's grant to store the key names this tag and value (infra/pipeline/permissions.ts).
      // Among others (prod's retained data carries the tags a new stack takes it back by).
      expect(resources(template)[logicalId(stack.releases.canaryKey)]?.Properties?.Tags).toEqual(
        expect.arrayContaining([{ Key: CANARY_KEY_SECRET_TAG, Value: stageName }]),
      );
    });

    test.each(['authorizer', 'cancel-order'] as const)('the p99 duration of the new version of %s', (name) => {
      expect(alarm(name, 1)).toMatchObject({
        ...fast,
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        ExtendedStatistic: 'p99',
        Dimensions: newVersionDimensions(name),
        Threshold: config.p99LatencyMs,
      });
    });

    test('the longest streamed listing of the new version, against its timeout', () => {
      const { template, stack } = stage();
      const timeout = resources(template)[logicalId(stack.functions['list-orders'].function)]?.Properties
        ?.Timeout as number;
      expect(alarm('list-orders', 1)).toMatchObject({
        ...fast,
        Namespace: 'AWS/Lambda',
        MetricName: 'Duration',
        Statistic: 'Maximum',
        Dimensions: newVersionDimensions('list-orders'),
        Threshold: timeout * 1000 * 0.8,
      });
    });
  });
});
