// The stage's CloudWatch dashboard: the API's traffic, errors and latency next to the business
// metrics the functions write as EMF lines (lib/edge/metrics.ts declares both sides).
import { Duration, Stack } from 'aws-cdk-lib/core';
import type { Stage } from 'aws-cdk-lib/aws-apigateway';
import { Dashboard, GraphWidget, Metric, TextWidget, type IMetric } from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { BUSINESS_METRICS, METRICS_NAMESPACE, type MetricDeclaration } from '../../lib/edge/metrics';
import { SERVICE_NAME } from '../../lib/commons/service';
import type { StageName } from '../../lib/contract/deployment';
import { SYNC_TIMING } from '../../lib/contract/sync';

export interface ServiceDashboardProps {
  stageName: StageName;
  /** The API Gateway stages (v1, v2) whose traffic, errors and latency are shown, a row each. */
  apiStages: readonly { basePath: string; stage: Stage }[];
  /** The orders table's stream consumer: how long changes wait for it, beside what it found. */
  syncWatch: IFunction;
  /** Event delivery: the delivery queue's oldest message, beside the events and attempts. */
  webhookDelivery: { queue: IQueue; fanout: IFunction };
  /** The index-lag canary: its runs' errors beside the lag it measures. */
  indexCanary: IFunction;
}

const PERIOD = Duration.minutes(5);
const WIDTH = 12;
const HEIGHT = 6;

/** Every combination of a metric's dimension values, e.g. each reason with each plan. */
function dimensionCombinations(dimensions: MetricDeclaration['dimensions']): Record<string, string>[] {
  return Object.entries(dimensions).reduce<Record<string, string>[]>(
    (combinations, [name, values]) =>
      combinations.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value }))),
    [{}],
  );
}

export class ServiceDashboard extends Construct {
  readonly dashboard: Dashboard;
  /** The dashboard in the CloudWatch console. */
  readonly url: string;

  constructor(scope: Construct, id: string, props: ServiceDashboardProps) {
    super(scope, id);

    const business = (declaration: MetricDeclaration, statistic: string): IMetric[] =>
      dimensionCombinations(declaration.dimensions).map(
        (dimensions) =>
          new Metric({
            namespace: METRICS_NAMESPACE,
            metricName: declaration.name,
            dimensionsMap: { service: SERVICE_NAME, stage: props.stageName, ...dimensions },
            statistic,
            period: PERIOD,
            label: Object.values(dimensions).join(' ') || `${declaration.name} (${statistic})`,
          }),
      );
    const graph = (title: string, left: IMetric[], right: IMetric[] = []) =>
      new GraphWidget({ title, left, right, width: WIDTH, height: HEIGHT });
    const apiRow = ({ basePath, stage }: ServiceDashboardProps['apiStages'][number]) => [
      graph(
        `Requests and errors (${basePath})`,
        [stage.metricCount({ statistic: 'Sum', period: PERIOD, label: 'requests' })],
        [
          stage.metricClientError({ statistic: 'Sum', period: PERIOD, label: '4XX' }),
          stage.metricServerError({ statistic: 'Sum', period: PERIOD, label: '5XX' }),
        ],
      ),
      graph(`Latency (${basePath}, ms)`, [
        stage.metricLatency({ statistic: 'p50', period: PERIOD, label: 'p50' }),
        stage.metricLatency({ statistic: 'p99', period: PERIOD, label: 'p99' }),
        stage.metricIntegrationLatency({ statistic: 'p99', period: PERIOD, label: 'integration p99' }),
      ]),
    ];

    const dashboardName = `store-orders-${props.stageName}`;
    this.dashboard = new Dashboard(this, 'Dashboard', {
      dashboardName,
      defaultInterval: Duration.hours(3),
      widgets: [
        [
          new TextWidget({
            markdown:
              `# Store Orders API (${props.stageName})\n` +
              `API Gateway metrics of each API (${props.apiStages.map((s) => s.basePath).join(', ')}, a RestApi each), ` +
              "then the business metrics the functions write as EMF. v1 listOrders' latency spans the whole stream.",
            width: 2 * WIDTH,
            height: 2,
          }),
        ],
        ...props.apiStages.map(apiRow),
        [
          graph('Cancels by outcome', business(BUSINESS_METRICS.cancels, 'Sum')),
          graph('Authorizer refusals by cause', business(BUSINESS_METRICS.authorizerRefusals, 'Sum')),
        ],
        [
          graph('Rate-limit refusals by reason and plan', business(BUSINESS_METRICS.refusals, 'Sum')),
          graph('Key bans by plan', business(BUSINESS_METRICS.bans, 'Sum')),
        ],
        [
          graph('Orders per listing', [
            ...business(BUSINESS_METRICS.listedOrders, 'Average'),
            ...business(BUSINESS_METRICS.listedOrders, 'Maximum'),
          ]),
          graph('Bytes per listing', [
            ...business(BUSINESS_METRICS.listedBytes, 'Average'),
            ...business(BUSINESS_METRICS.listedBytes, 'Maximum'),
            // As sent, cut listings included: Lambda cuts a response at 200 MB.
            ...business(BUSINESS_METRICS.listingResponseBytes, 'Maximum'),
          ]),
        ],
        [
          graph(
            'Sync watch: changes watched, re-stamped, stamped ahead',
            business(BUSINESS_METRICS.changesWatched, 'Sum'),
            [
              ...business(BUSINESS_METRICS.changesRestamped, 'Sum'),
              ...business(BUSINESS_METRICS.changesStampedAhead, 'Sum'),
            ],
          ),
          graph('Sync watch: lateness and stream wait (ms)', business(BUSINESS_METRICS.changeLateness, 'Maximum'), [
            props.syncWatch.metric('IteratorAge', { statistic: 'Maximum', period: PERIOD, label: 'IteratorAge (max)' }),
          ]),
        ],
        [
          graph(
            'Webhooks: events queued, attempts by outcome',
            [...business(BUSINESS_METRICS.webhookEvents, 'Sum'), ...business(BUSINESS_METRICS.webhookQueued, 'Sum')],
            [
              ...business(BUSINESS_METRICS.webhookDelivered, 'Sum'),
              ...business(BUSINESS_METRICS.webhookFailed, 'Sum'),
              ...business(BUSINESS_METRICS.webhookGone, 'Sum'),
              ...business(BUSINESS_METRICS.webhookSuperseded, 'Sum'),
              ...business(BUSINESS_METRICS.webhookWaits, 'Sum'),
            ],
          ),
          graph(
            'Webhooks: oldest queued (s), change to acknowledgement and stream wait (ms)',
            [
              props.webhookDelivery.queue.metricApproximateAgeOfOldestMessage({
                statistic: 'Maximum',
                period: PERIOD,
                label: 'oldest queued delivery (s)',
              }),
            ],
            [
              ...business(BUSINESS_METRICS.webhookEventAge, 'Maximum'),
              props.webhookDelivery.fanout.metric('IteratorAge', {
                statistic: 'Maximum',
                period: PERIOD,
                label: 'fan-out IteratorAge (max)',
              }),
            ],
          ),
        ],
        [
          new GraphWidget({
            title: `Index lag by index (canary, ms; budget ${SYNC_TIMING.indexLagMs} ms)`,
            left: business(BUSINESS_METRICS.indexLag, 'Maximum'),
            leftAnnotations: [{ value: SYNC_TIMING.indexLagMs, label: 'indexLagMs' }],
            width: WIDTH,
            height: HEIGHT,
          }),
          graph('Index lag: episodes swept, canary failures', business(BUSINESS_METRICS.indexLagRestamps, 'Sum'), [
            props.indexCanary.metricErrors({ statistic: 'Sum', period: PERIOD, label: 'canary errors' }),
          ]),
        ],
      ],
    });
    const region = Stack.of(this).region;
    this.url = `https://${region}.console.aws.amazon.com/cloudwatch/home?region=${region}#dashboards:name=${dashboardName}`;
  }
}
