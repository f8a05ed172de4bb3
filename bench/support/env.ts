// Imported first by bench/run.ts and the load stack: the logger and the SDK read these when their
// modules load, and the bench measures the service, not log or metric output or the SDK's Node-version notice.

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

import { SERVICE_NAME } from '../../lib/aws/service';
import { TABLES, type TableNames } from '../../lib/aws/tables';

/** What a Lambda entry in functions/ needs in its environment, pointed at the given tables. */
export function lambdaEnv(tables: TableNames, endpoint?: string): Record<string, string> {
  const env: Record<string, string> = {
    [TABLES.orders.envVar]: tables.orders,
    [TABLES.apiKeys.envVar]: tables.apiKeys,
    [TABLES.rateLimits.envVar]: tables.rateLimits,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
    POWERTOOLS_METRICS_DISABLED: 'true',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  if (endpoint) env.DYNAMODB_ENDPOINT = endpoint;
  return env;
}

/** A child's environment: PATH and HOME only from this one, so nothing else leaks into a timing. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR']) {
    const value = process.env[name];
    if (value !== undefined) base[name] = value;
  }
  return { ...base, ...extra };
}
