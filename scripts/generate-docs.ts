// The docs' blocks that restate declarations (tables, error examples), rendered from them for
// `npm run generate`, so a changed plan, cap or error shows in the docs without a hand edit.
import { STATUS_CODES } from 'node:http';
import { ERROR_CODES, ERRORS, errorJson, type ErrorCode } from '../lib/contract/errors';
import { BAN, LISTINGS_IN_FLIGHT, PLAN_LIMITS, PLAN_NAMES } from '../lib/contract/plans';
import {
  ADDRESS_LIMIT,
  ADDRESS_LIMITED_ANSWER,
  ADDRESS_PER_MINUTE_BUDGET,
  WAF_RATE_RULE,
} from '../lib/contract/address-limit';
import { settleMs, SYNC_TIMING } from '../lib/contract/sync';
import { FUNCTIONS, indexLagRepairMs, STREAM_MAPPINGS, syncRepairMs } from '../lib/contract/deployment';
import { INDEX_CANARY } from '../lib/contract/index-canary';
import { landingAllowanceMs, STREAM_TIME_RESOLUTION_MS } from '../lib/core/sync/lateness';
import { REQUEST_TIMEOUT_MS } from '../lib/stores/dynamo';
import { retrySchedule, WEBHOOK_RETRY } from '../lib/contract/webhook-delivery';

export const count = (n: number) => n.toLocaleString('en-US');

/** docs/rate-limits.md: each plan's request windows. */
export function planLimitsTable(): string {
  const rows = Object.entries(PLAN_LIMITS).map(
    ([plan, { perMinute, perDay }]) => `| ${plan} | ${count(perMinute)} | ${count(perDay)} |`,
  );
  return [
    '| Plan | Requests per minute | Requests per day |',
    '|---|---|---|',
    ...rows,
    '| enterprise | per key, set when the key is created | per key |',
  ].join('\n');
}

/** docs/listing-limits.md: each plan's cap on listings in flight. */
export function listingsInFlightTable(): string {
  const rows = PLAN_NAMES.map((plan) => {
    const cap = count(LISTINGS_IN_FLIGHT[plan]);
    return plan === 'enterprise'
      ? `| ${plan} | ${cap} (the default for every enterprise key; their custom limits are per minute and per day) |`
      : `| ${plan} | ${cap} |`;
  });
  return ['| Plan | Listings in flight |', '| --- | --- |', ...rows].join('\n');
}

/** docs/api.md: every error code with its status, in catalogue order. */
export function errorCodesList(): string {
  const codes = ERROR_CODES.map((code) => `\`${code}\` ${ERRORS[code].status}`);
  return `Error codes (declared once, in \`lib/contract/errors.ts\`): ${codes.join(', ')}.`;
}

/** An error answer as a client sees it: the status line (when asked) and the Error body. */
export function errorExample(code: ErrorCode, withStatusLine: boolean): string {
  const { status } = ERRORS[code];
  const lines = withStatusLine ? [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd()] : [];
  return ['```' + (withStatusLine ? '' : 'json'), ...lines, errorJson(code), '```'].join('\n');
}

/** docs/rate-limits.md: the ban rule, with its threshold and length from BAN. */
export function banRule(): string {
  const times = BAN.rejectedPerMinuteFactor === 1 ? 'its' : `${BAN.rejectedPerMinuteFactor} times its`;
  const minutes = BAN.durationSeconds / 60;
  const length = Number.isInteger(minutes) ? `${count(minutes)} minutes` : `${count(BAN.durationSeconds)} seconds`;
  return [
    `A key that, within one minute, keeps sending more refused requests than ${times} per-minute limit is`,
    `banned for ${length}: \`${ERRORS.KEY_TEMPORARILY_BANNED.status} KEY_TEMPORARILY_BANNED\`, with \`Retry-After\` the seconds left of the`,
    'ban; requests that cross the threshold together all report the one ban end stored. Requests',
    'refused for the ban are not counted, so a ban ends on time. Thresholds and ban length are declared',
    'with the plans, in `lib/contract/plans.ts`.',
  ].join('\n');
}

/** docs/rate-limits.md: the web ACL's limit per client address, and what it is sized for. */
export function addressLimitRule(): string {
  const { limit, windowSeconds } = ADDRESS_LIMIT;
  const minutes = Math.ceil(windowSeconds / 60) + 1;
  const refused = BAN.rejectedPerMinuteFactor * ADDRESS_PER_MINUTE_BUDGET;
  const businessKeys = ADDRESS_PER_MINUTE_BUDGET / PLAN_LIMITS.business.perMinute;
  return [
    `More than **${count(limit)} requests from one client address within ${count(windowSeconds)} seconds**, whatever their`,
    `keys and on v1 and v2 together, are answered \`${ERRORS.ADDRESS_RATE_LIMITED.status} ADDRESS_RATE_LIMITED\` with \`Retry-After: ${ADDRESS_LIMITED_ANSWER.headers['Retry-After']}\``,
    'and no rate-limit headers, from the moment the web ACL notices (it checks the rate every so often:',
    `usually within ${WAF_RATE_RULE.delaySeconds} seconds) until it notices the address has slowed down. The limit is what keys whose`,
    `per-minute limits add up to ${count(ADDRESS_PER_MINUTE_BUDGET)} (${count(businessKeys)} business keys) can send within ${count(windowSeconds)} seconds without being`,
    `banned: the window meets ${count(minutes)} calendar minutes, in each of which they are served ${count(ADDRESS_PER_MINUTE_BUDGET)} and refused at most`,
    `${count(refused)} more. Declared in \`lib/contract/address-limit.ts\`.`,
  ].join('\n');
}

/** docs/design.md: the bounds exact sync relies on, and the settling time they add up to. */
export function syncTimingTable(): string {
  const seconds = (ms: number) => `${count(ms / 1000)} s`;
  const rows = [
    [
      'clockErrorMs',
      SYNC_TIMING.clockErrorMs,
      "the most a stamping or walking clock may be off AWS's (counted twice: writer and walk)",
    ],
    ['attempt timeout', REQUEST_TIMEOUT_MS, 'each attempt of a stamped write is cut then (deployed)'],
    [
      'unansweredLandingMs',
      SYNC_TIMING.unansweredLandingMs,
      'how long after its last attempt an unanswered write may still land',
    ],
    ['indexLagMs', SYNC_TIMING.indexLagMs, 'index propagation (AWS: within 1 second)'],
  ] as const;
  return [
    '| Bound | Value | What it covers |',
    '|---|---|---|',
    ...rows.map(([name, ms, what]) => `| \`${name}\` | ${seconds(ms)} | ${what} |`),
    `| **settleMs** (deployed) | **${seconds(settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS))}** | the watermark stands this far behind the walk's start |`,
    `| \`freshnessMs\` | ${seconds(SYNC_TIMING.freshnessMs)} | a change acknowledged to its writer is delivered by any walk that starts this much later |`,
  ].join('\n');
}

/** docs/api.md and docs/design.md: what the sync watch allows a change, and the time it repairs a later one in. */
export function syncRepairTable(): string {
  const seconds = (ms: number) => `${count(ms / 1000)} s`;
  const watch = STREAM_MAPPINGS['sync-watch'];
  const allowance = landingAllowanceMs({
    settleMs: settleMs(SYNC_TIMING, REQUEST_TIMEOUT_MS),
    clockErrorMs: SYNC_TIMING.clockErrorMs,
    indexLagMs: SYNC_TIMING.indexLagMs,
  });
  return [
    '| Bound | Value | What it covers |',
    '|---|---|---|',
    `| landing allowance | ${seconds(allowance)} | how long after its stamp a change may reach the table (settleMs less \`indexLagMs\` and the walk's \`clockErrorMs\`); a change that may have landed later is re-stamped |`,
    `| stream time resolution | ${seconds(STREAM_TIME_RESOLUTION_MS)} | a stream record's creation time is rounded down to the second: a change is judged to have landed at the end of its second |`,
    `| \`iteratorAgeAlarmSeconds\` | ${seconds(watch.iteratorAgeAlarmSeconds * 1000)} | how long a change may wait in the stream before the watch gets it (alarmed: \`SyncWatchIteratorAge\`) |`,
    `| watch timeout | ${seconds(FUNCTIONS['sync-watch'].timeoutSeconds * 1000)} | how long the watch may take over one batch (its re-stamps included) |`,
    `| \`freshnessMs\` | ${seconds(SYNC_TIMING.freshnessMs)} | a re-stamp, like any change, is delivered by any walk that starts this much later |`,
    `| **repair time** (deployed) | **${seconds(syncRepairMs())}** | a change that landed late (by any amount) is delivered by any walk that starts this long after it landed |`,
  ].join('\n');
}

/** A duration in the schedule's words: seconds, minutes or hours. */
function span(ms: number): string {
  if (ms < 60_000) return `${count(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Number((ms / 60_000).toFixed(1))} min`;
  return `${Number((ms / 3_600_000).toFixed(1))} h`;
}

/** docs/api.md: the retry schedule, each retry's wait until the steps reach the largest, then the rest in one row. */
export function retryScheduleTable(): string {
  const schedule = retrySchedule();
  const capped = schedule.findIndex((r) => r.maxMs === WEBHOOK_RETRY.maxStepMs);
  const rows = schedule
    .slice(0, capped + 1)
    .map((r) => `| ${r.retry} | ${span(r.minMs)} to ${span(r.maxMs)} | ${span(r.latestMs)} |`);
  const last = schedule.at(-1);
  const first = schedule[capped + 1];
  if (first && last)
    rows.push(
      `| ${first.retry} to ${last.retry} | ${span(first.minMs)} to ${span(first.maxMs)} each | until ${span(WEBHOOK_RETRY.windowMs)} after the first attempt |`,
    );
  return [
    '| Retry | Waits after the failure before it | Comes at the latest, after the first failure |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** docs/api.md and docs/design.md: the index-lag canary's timing, and the time it repairs a lag beyond the budget in. */
export function indexLagRepairTable(): string {
  const seconds = (ms: number) => `${count(ms / 1000)} s`;
  const run = INDEX_CANARY.periodSeconds * 1000 + INDEX_CANARY.lateAllowanceMs;
  return [
    '| Bound | Value | What it covers |',
    '|---|---|---|',
    `| \`indexLagMs\` | ${seconds(SYNC_TIMING.indexLagMs)} | the budget: a probe shown later by an index is over it (alarmed: \`IndexLagOverBudget…\`) |`,
    `| \`periodSeconds\` | ${seconds(INDEX_CANARY.periodSeconds * 1000)} | between two runs of the canary (EventBridge Scheduler's \`rate(1 minute)\`) |`,
    `| \`lateAllowanceMs\` | ${seconds(INDEX_CANARY.lateAllowanceMs)} | how late a run's writes may be; a record with no newer probe than a period and this is stale, and walks vouch for nothing past its last probe seen (alarmed: \`IndexCanarySilent\`) |`,
    `| \`readBackMs\` | ${seconds(INDEX_CANARY.readBackMs)} | how long a run reads its probe back; a lag beyond it is not measured, and walks vouch for nothing past the last probe seen until a later one is |`,
    `| two runs | ${seconds(2 * run)} | the run that finds the lag back asks for the episode's first sweep, the next one for its second |`,
    `| sweep | ${seconds(syncRepairMs() - SYNC_TIMING.freshnessMs)} | the stream hands the request to the sync watch within its iterator age, which sweeps within its timeout |`,
    `| hold, then \`freshnessMs\` | ${seconds(INDEX_CANARY.readBackMs + SYNC_TIMING.freshnessMs)} | a measurement holds walks back until its lag (at most the read-back time) is over; a re-stamp is then delivered freshnessMs later |`,
    `| **index-lag repair time** (deployed) | **${seconds(indexLagRepairMs())}** | a change that landed while the indexes lagged beyond the budget, for a period and its lateness or longer, is delivered by any walk that starts this long after the lag is back |`,
  ].join('\n');
}
