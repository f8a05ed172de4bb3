// `npm run smoke -- --stage STAGE --clean-up --run ID`: the pipeline's `if: always()` step. A
// smoke run that was killed (a cancelled or timed-out job, a lost runner) cannot revoke its own
// keys; this finds them by the run id in their names and removes them, API Gateway keys included,
// even one whose id the killed run never got to record.
import { errorMessage } from '../shared/errors';
import type { AdminTarget } from '../admin/target';
import { revokeKey, throwawayKeyName } from './throwaway-keys';

export interface CleanUpReport {
  /** The key records of the run that were still live or still had an API Gateway key. */
  revoked: string[];
  /** Gateway keys found by name with no id on their record, deleted. */
  unrecorded: string[];
  problems: string[];
}

export async function cleanUpRun(admin: AdminTarget, runId: string): Promise<CleanUpReport> {
  const name = throwawayKeyName(runId);
  const report: CleanUpReport = { revoked: [], unrecorded: [], problems: [] };
  for (const record of (await admin.keys.list()).filter((r) => r.name === name)) {
    try {
      if (record.revokedAt === undefined || record.gatewayKeyId !== undefined) {
        await revokeKey(admin, record.id);
        report.revoked.push(record.id);
      }
      // Killed between creating the gateway key and recording its id: the key carries the record's id as its name.
      for (const gatewayKeyId of (await admin.gateway?.named(record.id)) ?? []) {
        await admin.gateway?.remove(gatewayKeyId, record.plan);
        report.unrecorded.push(gatewayKeyId);
      }
    } catch (error) {
      report.problems.push(`Could not remove ${record.id}: ${errorMessage(error)}`);
    }
  }
  return report;
}
