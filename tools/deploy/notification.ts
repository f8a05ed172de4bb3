// Before a deploy or diff of a stage whose alarms must notify someone (prod): a topic must be named.
// Synthesised here, by cdk after the preflight, the topic comes from the environment
// (`PROD_ALARM_TOPIC_ARN`, read by the CDK app through infra/stages.ts); from a cloud assembly
// synthesised before (`--app cdk.out`, the pipeline), the stage's template must already carry an
// alarm action on every alarm. Offline: one line, before any AWS call.
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import {
  ALARM_TOPIC_REQUIRED,
  alarmTopicArn,
  AlarmTopicError,
  alarmTopicVariable,
  stackNameFor,
  type StageName,
} from '../../lib/contract/deployment';

/** The cloud assembly directory cdk is given (`--app <dir>`, `-a <dir>`, `--app=<dir>`), if the app is one. */
export function assemblyDirectory(cdkArgs: readonly string[], cwd: string): string | undefined {
  let app: string | undefined;
  cdkArgs.forEach((arg, i) => {
    if (arg === '--app' || arg === '-a') app = cdkArgs[i + 1];
    else if (arg.startsWith('--app=')) app = arg.slice('--app='.length);
  });
  if (app === undefined) return undefined;
  const dir = path.resolve(cwd, app);
  return existsSync(path.join(dir, 'manifest.json')) ? dir : undefined;
}

interface AlarmResource {
  Type: string;
  Properties?: { AlarmActions?: unknown[] };
}

/** Undefined when the stage's alarms notify someone (or need not), else the one line saying what to do. */
export function notificationProblem(
  stage: StageName,
  cdkArgs: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
): string | undefined {
  if (!ALARM_TOPIC_REQUIRED[stage]) return undefined;
  const variable = alarmTopicVariable(stage);
  const setIt = `set ${variable}=<SNS topic ARN> (in the pipeline, the repository variable ${variable})`;
  const assembly = assemblyDirectory(cdkArgs, cwd);
  if (assembly !== undefined) {
    const file = path.join(assembly, `${stackNameFor(stage)}.template.json`);
    if (!existsSync(file)) return `The cloud assembly ${assembly} has no ${stackNameFor(stage)} template to deploy.`;
    const { Resources = {} } = JSON.parse(readFileSync(file, 'utf8')) as { Resources?: Record<string, AlarmResource> };
    const alarms = Object.values(Resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
    const silent = alarms.filter((r) => (r.Properties?.AlarmActions ?? []).length === 0);
    if (silent.length === 0) return undefined;
    return `${silent.length} of the ${alarms.length} alarms of ${stackNameFor(stage)} in ${assembly} notify nobody: ${setIt} and synthesise again.`;
  }
  try {
    if (alarmTopicArn(stage, env) !== undefined) return undefined;
  } catch (error) {
    if (error instanceof AlarmTopicError) return error.message;
    throw error;
  }
  return `The alarms of ${stage} must notify someone: ${setIt}.`;
}
