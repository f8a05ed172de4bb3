import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Runs the Redocly CLI linter on a document file with the project's redocly.yaml. Telemetry and
 * the update check are off, so it needs no network.
 */
export function lintOpenApi(...files: string[]): { status: number | null; output: string } {
  const result = spawnSync(
    join(process.cwd(), 'node_modules/.bin/redocly'),
    ['lint', ...files, '--config', join(process.cwd(), 'redocly.yaml')],
    {
      encoding: 'utf8',
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      timeout: 60_000,
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
