import { runAdmin, type AdminDeps } from '../../tools/admin/run';
import { tablesTarget, type AdminTarget } from '../../tools/admin/target';
import type { TestTables } from './dynamo';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The progress lines, as a terminal would have been shown them; "(cleared)" when cleared. */
  progress: string[];
}

export type Admin = (...argv: string[]) => Promise<AdminRun>;

/** The test tables as the admin command's local target. */
export function testTarget(tables: TestTables): AdminTarget {
  return tablesTarget({ doc: tables.doc, names: tables.names, label: 'the test tables', unreachableHint: '' });
}

/** Runs the admin command in-process, capturing what it writes. */
export function adminRunner(local: () => AdminTarget, extra: Partial<Omit<AdminDeps, 'out' | 'local'>> = {}): Admin {
  return async (...argv) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const progress: string[] = [];
    const code = await runAdmin(argv, {
      out: {
        out: (line) => stdout.push(line),
        err: (line) => stderr.push(line),
        progress: (text) => progress.push(text),
        progressDone: () => progress.push('(cleared)'),
      },
      local,
      stage: () => Promise.reject(new Error('no stage in this test')),
      ...extra,
    });
    return { code, stdout: stdout.join('\n'), stderr: stderr.join('\n'), progress };
  };
}
