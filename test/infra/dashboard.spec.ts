import { Template } from 'aws-cdk-lib/assertions';
import { BUSINESS_METRICS, METRICS_NAMESPACE, STAGE_ENV_VAR } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import { DASHBOARD_URL_OUTPUT, STAGE_NAMES } from '../../lib/contract/deployment';
import { stageStacks } from './synth';

// Each stage has a dashboard with every business metric (each dimension value, the stage's own
// metrics only) and the API's traffic, errors and latency, and gives its URL as an output.
// Bundling is off: nothing here looks at the functions' code.

const stacks = stageStacks();

type MetricRow = (string | Record<string, unknown>)[];

/** The dashboard body with CloudFormation references replaced by placeholders, parsed. */
function dashboardOf(template: Template): { name: string; widgets: { properties: { metrics?: MetricRow[] } }[] } {
  const dashboards = Object.values(template.findResources('AWS::CloudWatch::Dashboard'));
  expect(dashboards).toHaveLength(1);
  const properties = (dashboards[0] as { Properties: { DashboardName: string; DashboardBody: unknown } }).Properties;
  const body = properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
  const text = body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'REF')).join('');
  return {
    name: properties.DashboardName,
    ...(JSON.parse(text) as { widgets: { properties: { metrics?: MetricRow[] } }[] }),
  };
}

function combinations(dimensions: Readonly<Record<string, readonly string[]>>): Record<string, string>[] {
  return Object.entries(dimensions).reduce<Record<string, string>[]>(
    (rows, [name, values]) => rows.flatMap((row) => values.map((value) => ({ ...row, [name]: value }))),
    [{}],
  );
}

/** A graphed metric: namespace, name and its dimensions in any order. */
function metricKey(namespace: string, name: string, dimensions: Record<string, string>): string {
  return JSON.stringify([namespace, name, Object.entries(dimensions).sort(([a], [b]) => a.localeCompare(b))]);
}

function rowKey(row: MetricRow): string {
  const [namespace, name, ...rest] = row.filter((part): part is string => typeof part === 'string');
  const dimensions: Record<string, string> = {};
  for (let i = 0; i + 1 < rest.length; i += 2) dimensions[rest[i] as string] = rest[i + 1] as string;
  return metricKey(namespace ?? '', name ?? '', dimensions);
}

describe.each(STAGE_NAMES)('%s', (stage) => {
  const template = Template.fromStack(stacks[stage]);
  const dashboard = dashboardOf(template);
  const rows = dashboard.widgets.flatMap((widget) => widget.properties.metrics ?? []);
  const graphed = new Set(rows.map(rowKey));

  test('the dashboard is named for the stage', () => {
    expect(dashboard.name).toBe(`store-orders-${stage}`);
  });

  test.each(Object.keys(BUSINESS_METRICS) as (keyof typeof BUSINESS_METRICS)[])(
    'graphs %s for every dimension value',
    (id) => {
      const { name, dimensions } = BUSINESS_METRICS[id];
      for (const values of combinations(dimensions)) {
        expect(graphed).toContain(metricKey(METRICS_NAMESPACE, name, { service: SERVICE_NAME, stage, ...values }));
      }
    },
  );

  test("graphs only this stage's business metrics", () => {
    const business = rows.filter((row) => row[0] === METRICS_NAMESPACE);
    expect(business.length).toBeGreaterThan(0);
    for (const row of business) expect(rowKey(row)).toContain(JSON.stringify(['stage', stage]));
  });

  test("graphs the API's requests, 4XX, 5XX and latency", () => {
    const apiMetrics = new Set(rows.filter((row) => row[0] === 'AWS/ApiGateway').map((row) => row[1]));
    expect([...apiMetrics].sort()).toEqual(['4XXError', '5XXError', 'Count', 'IntegrationLatency', 'Latency']);
  });

  test("graphs each API's requests, 4XX, 5XX and latency: v1's and v2's, by API name", () => {
    const apiNames = new Set(
      rows
        .filter((row) => row[0] === 'AWS/ApiGateway')
        .map((row) => {
          const at = row.indexOf('ApiName');
          return at < 0 ? undefined : row[at + 1];
        }),
    );
    expect([...apiNames].sort()).toEqual(stacks[stage].apis.map(({ api }) => api.restApiName).sort());
    for (const { api } of stacks[stage].apis) {
      const metrics = rows.filter((row) => row[0] === 'AWS/ApiGateway' && row.includes(api.restApiName));
      expect(new Set(metrics.map((row) => row[1]))).toEqual(
        new Set(['4XXError', '5XXError', 'Count', 'IntegrationLatency', 'Latency']),
      );
    }
  });

  test('every function is told its stage, which its metrics carry', () => {
    const functions = Object.values(template.findResources('AWS::Lambda::Function')) as {
      Properties: { Environment?: { Variables?: Record<string, unknown> } };
    }[];
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) expect(fn.Properties.Environment?.Variables?.[STAGE_ENV_VAR]).toBe(stage);
  });

  test('the dashboard URL is a stack output', () => {
    const output = template.findOutputs(DASHBOARD_URL_OUTPUT);
    const value = JSON.stringify(output[DASHBOARD_URL_OUTPUT]?.Value);
    expect(value).toContain('console.aws.amazon.com/cloudwatch/home?region=');
    expect(value).toContain(`#dashboards:name=store-orders-${stage}`);
  });
});
