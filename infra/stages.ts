import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { PLAN_NAMES, usagePlanBackstop } from '../lib/contract/plans';
import { alarmTopicArn, LIST_ORDERS_RESERVED_CONCURRENCY, type StageName } from '../lib/contract/deployment';

/**
 * Serves the API at `https://<domainName>/v1`, the `{base_url}` / `{staging_url}` of the
 * specification. Without it the stage is reached at its execute-api URL, which also ends in `/v1`.
 */
export interface CustomDomainConfig {
  domainName: string;
  /** An ACM certificate for domainName in the stack's region (the endpoint is regional). */
  certificateArn?: string;
  /**
   * The Route 53 zone that holds domainName. When given, an alias record is created, and a
   * DNS-validated certificate is issued if no certificateArn is given. Given as attributes so that
   * synthesis needs no lookup.
   */
  hostedZone?: { hostedZoneId: string; zoneName: string };
}

/**
 * How a new version of each function takes over its `live` alias, which API Gateway invokes. Every
 * stage releases by a canary (never all at once, so the weighted alias API Gateway invokes is
 * exercised in staging before prod): `percent` of the calls go to the new version for `minutes`,
 * then all of them, unless a rollback alarm of the function fires first (CodeDeploy then points the
 * alias back). Before any call moves, a pre-traffic hook invokes the new version with synthetic requests.
 */
export interface ReleaseConfig {
  type: 'canary';
  percent: number;
  minutes: number;
}

/**
 * The rollback alarms' window: one-minute periods, alarming on this many breaching ones in a row.
 * A canary lasts longer, so an alarm can fire while only its share of the calls reach the new version.
 */
export const ROLLBACK_ALARM_MINUTES = 2;

export interface StageConfig {
  stage: StageName;
  customDomain?: CustomDomainConfig;
  /** Retention of the access, execution and function logs. */
  logRetention: RetentionDays;
  /**
   * Tables are deleted with the stack and carry no deletion protection. Only for a stage whose
   * data may be lost; the stack refuses it for prod.
   */
  disposableData: boolean;
  /**
   * Stage-wide throttling, shared by all keys together; the stack refuses values stricter than
   * any usage plan's per-key throttle.
   */
  throttle: { rateLimit: number; burstLimit: number };
  /**
   * Concurrent executions reserved for list-orders, which is also its most: a listing holds one
   * for up to its timeout, so the listings of a few keys cannot take the account's shared pool
   * (the authorizer's and cancelOrder's too). Taken from the account's unreserved concurrency.
   */
  listOrdersReservedConcurrency: number;
  alarms: {
    /**
     * An existing SNS topic that receives alarm and OK notifications. The environment variable
     * `<STAGE>_ALARM_TOPIC_ARN` sets it at synthesis (stageConfig); prod must have one to deploy.
     */
    topicArn?: string;
    /** An address subscribed (after it confirms) to a topic the stack creates for the alarms. */
    email?: string;
    /** Fraction of requests answered with a 5XX over five minutes. */
    serverErrorRate: number;
    p99LatencyMs: number;
  };
  release: ReleaseConfig;
}

export const STAGES: Record<StageName, StageConfig> = {
  staging: {
    stage: 'staging',
    logRetention: RetentionDays.ONE_MONTH,
    disposableData: true,
    // The burst holds the largest usage-plan burst (two business minutes), so no plan is squeezed.
    throttle: { rateLimit: 100, burstLimit: 2_000 },
    listOrdersReservedConcurrency: LIST_ORDERS_RESERVED_CONCURRENCY.staging,
    alarms: { serverErrorRate: 0.05, p99LatencyMs: 3_000 },
    // Short, as staging carries little traffic: it exercises the weighted alias and the hook before prod does.
    release: { type: 'canary', percent: 50, minutes: ROLLBACK_ALARM_MINUTES + 1 },
  },
  prod: {
    stage: 'prod',
    logRetention: RetentionDays.ONE_YEAR,
    disposableData: false,
    // Well under the account's default regional limit (10,000 rps), which every API shares.
    throttle: { rateLimit: 2_000, burstLimit: 5_000 },
    listOrdersReservedConcurrency: LIST_ORDERS_RESERVED_CONCURRENCY.prod,
    alarms: { serverErrorRate: 0.01, p99LatencyMs: 2_000 },
    // Time for the rollback alarms (two breaching minutes) to fire, several times over, before all traffic moves.
    release: { type: 'canary', percent: 10, minutes: 10 },
  },
};

/**
 * A stage's configuration as deployed: STAGES, with the alarm topic the environment names
 * (`PROD_ALARM_TOPIC_ARN`, lib/contract/deployment.ts) when it names one.
 */
export function stageConfig(stage: StageName, env: Readonly<Record<string, string | undefined>>): StageConfig {
  const config = STAGES[stage];
  const topicArn = alarmTopicArn(stage, env) ?? config.alarms.topicArn;
  return topicArn === undefined ? config : { ...config, alarms: { ...config.alarms, topicArn } };
}

/**
 * The most concurrency a stage may reserve for list-orders: Lambda keeps 100 of an account's
 * executions unreserved, and the default account quota is 1,000 (shared by every stage and
 * function in the account and Region).
 */
export const MAX_LIST_ORDERS_RESERVED_CONCURRENCY = 900;

/**
 * Refuses, before anything is built, a configuration that would lose prod data, throttle before the
 * usage plans do, reserve no (or more than an account's) concurrency for listings, or name a
 * custom domain with no way to get its certificate.
 */
export function validateConfig(config: StageConfig): void {
  if (config.stage === 'prod' && config.disposableData) {
    throw new Error('prod data must be retained: disposableData is for staging only.');
  }
  const reserved = config.listOrdersReservedConcurrency;
  if (!Number.isInteger(reserved) || reserved < 1 || reserved > MAX_LIST_ORDERS_RESERVED_CONCURRENCY) {
    throw new Error(
      `listOrdersReservedConcurrency of ${config.stage} must be a whole number from 1 to ${MAX_LIST_ORDERS_RESERVED_CONCURRENCY}; got ${reserved}.`,
    );
  }
  const { release } = config;
  // A time-based canary takes a whole percentage below 100 and a whole number of minutes, longer
  // than the rollback alarms need to fire.
  if (!(Number.isInteger(release.percent) && release.percent >= 1 && release.percent <= 99)) {
    throw new Error(`The canary of ${config.stage} must send a whole percentage from 1 to 99 of the calls.`);
  }
  const minMinutes = ROLLBACK_ALARM_MINUTES + 1;
  if (!(Number.isInteger(release.minutes) && release.minutes >= minMinutes)) {
    throw new Error(
      `The canary of ${config.stage} must last a whole number of minutes, at least ${minMinutes} (the rollback alarms need ${ROLLBACK_ALARM_MINUTES}).`,
    );
  }
  const domain = config.customDomain;
  if (domain && !domain.certificateArn && !domain.hostedZone) {
    throw new Error(`Custom domain ${domain.domainName} needs a certificateArn or a hostedZone.`);
  }
  for (const plan of PLAN_NAMES) {
    const throttle = usagePlanBackstop(plan).throttle;
    if (!throttle) continue;
    if (config.throttle.rateLimit < throttle.rateLimit || config.throttle.burstLimit < throttle.burstLimit) {
      throw new Error(`Stage throttling of ${config.stage} is stricter than the ${plan} usage plan.`);
    }
  }
}
