import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runAdmin, type AdminDeps } from '../../tools/admin/run';
import { tablesTarget, type AdminTarget } from '../../tools/admin/target';
import { createTestTables, type TestTables } from './dynamo';

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The progress lines, as a terminal would have been shown them; "(cleared)" when cleared. */
  progress: string[];
}

export type Admin = (...argv: string[]) => Promise<AdminRun>;

/**
 * The test tables as the admin command's local target, on this machine's clock taken as AWS's (the
 * embedded server runs on it): the checked clock is the CLI's and localTarget's (tool-clocks.spec).
 */
export function testTarget(tables: TestTables): AdminTarget {
  return tablesTarget({
    wiring: { endpoint: tables.endpoint, tables: tables.names },
    label: 'the test tables',
    unreachableHint: '',
    clock: Date.now,
  });
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

export interface ImportFixture {
  tables: TestTables;
  /** The admin command on `tables`. */
  admin: Admin;
  /** The scratch folder the import files are written to. */
  dir: string;
  /** Writes raw JSON text to a new file, so numbers reach the command exactly as written. */
  file(json: string): string;
  /** How many items the imported table holds. */
  count(): Promise<number>;
}

/**
 * What an `import` spec needs, made before its tests and removed after them: its own tables, the
 * admin command on them, a scratch folder for import files, and a count of `table`'s items.
 */
export function importFixture(table: keyof TestTables['names']): ImportFixture {
  let files = 0;
  const fixture = {
    file(json: string): string {
      const path = join(fixture.dir, `${table}-${files++}.json`);
      writeFileSync(path, json);
      return path;
    },
    async count(): Promise<number> {
      const { Items } = await fixture.tables.doc.send(new ScanCommand({ TableName: fixture.tables.names[table] }));
      return Items?.length ?? 0;
    },
  } as ImportFixture;
  beforeAll(async () => {
    fixture.tables = await createTestTables();
    fixture.admin = adminRunner(() => testTarget(fixture.tables));
    fixture.dir = mkdtempSync(join(tmpdir(), `admin-${table}-`));
  });
  afterAll(async () => {
    rmSync(fixture.dir, { recursive: true, force: true });
    await fixture.tables.drop();
  });
  return fixture;
}
