// Imported first by bench/run.ts and the bench's child processes: the logger and the SDK read these
// when their modules load, and the bench measures the service, not log output or the SDK's notices.

process.env.POWERTOOLS_LOG_LEVEL = 'SILENT';
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

import { SERVICE_NAME } from '../../lib/commons/service';
import { TABLES, type TableId, type TableNames } from '../../lib/contract/tables';

/** A child's own arguments travel in the environment: one started as Lambda starts a function must have its script last. */
export const CHILD_ARGS_VAR = 'BENCH_CHILD_ARGS';
export const childArgs = (): string[] => JSON.parse(process.env[CHILD_ARGS_VAR] ?? '[]') as string[];

/** A child's environment: `extra`, the variables set above, PATH, HOME and TMPDIR, and nothing else. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const inherited = /^(PATH|HOME|TMPDIR|POWERTOOLS_LOG_LEVEL|POWERTOOLS_METRICS_DISABLED|AWS_SDK_JS_.*)$/;
  const env = Object.entries(process.env).filter(
    (e): e is [string, string] => inherited.test(e[0]) && e[1] !== undefined,
  );
  return { ...Object.fromEntries(env), ...extra };
}

/** What a Lambda entry in functions/ needs in its environment, pointed at the given tables. */
export function lambdaEnv(tables: TableNames, endpoint?: string): Record<string, string> {
  return childEnv({
    ...Object.fromEntries((Object.keys(TABLES) as TableId[]).map((id) => [TABLES[id].envVar, tables[id]])),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    ...(endpoint ? { DYNAMODB_ENDPOINT: endpoint } : {}),
  });
}
