// The import of a JSON array file, shared by `orders import` and `pets import`: the whole file is
// checked first (nothing is written when any element is wrong), then records are created in
// batches with bounded concurrency, existing ids skipped, so an interrupted import resumes.
import type { CommandContext } from './command';
import { mapBounded, PartialFailure } from './map-bounded';
import { AdminFailure, errorMessage, Interrupted } from '../shared/errors';
import { checkElement, checkImportFile, fileElements, type ImportKind } from './import-file';
import { ImportSyntaxError } from './json-array-elements';
import { ImportTally } from './import-tally';
import type { Output } from '../shared/output';
import { ClockRefused } from '../shared/aws-time';

/** Conditional puts in flight at once: quick on a big file, gentle on an on-demand table. */
export const IMPORT_CONCURRENCY = 16;
/** Records read ahead of the writes: memory holds this batch, not the file. */
const IMPORT_BATCH = 512;

function cannotRead(file: string, error: unknown): AdminFailure {
  const code = (error as { code?: unknown }).code;
  const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : errorMessage(error);
  return new AdminFailure(`Cannot read ${file}: ${why}`);
}

/** The file's elements as records, in batches; the file was checked, so a problem now means it changed. */
async function* recordBatches<T extends { id: string }>(
  kind: ImportKind<T>,
  file: string,
  signal: AbortSignal | undefined,
): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const element of fileElements(file, signal, kind.noun)) {
    const { record, problems } = checkElement(kind, element);
    if (!record) throw new AdminFailure(`${file} changed during the import (${problems[0] ?? `${kind.noun.many}[?]`})`);
    batch.push(record);
    if (batch.length === IMPORT_BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Creates the records of `file` with `create` (true when created, false when the id existed),
 * awaiting `beforeBatch` before each batch is written (the stamps' clock is checked).
 */
export async function importFile<T extends { id: string }>(
  kind: ImportKind<T>,
  file: string,
  create: (record: T) => Promise<boolean>,
  { target, out, signal }: CommandContext,
  beforeBatch: () => Promise<void> = async () => undefined,
): Promise<void> {
  const { one, many } = kind.noun;
  const check = await checkImportFile(file, signal, kind).catch((error: unknown) => {
    if (error instanceof ImportSyntaxError) throw new AdminFailure(`${file}: ${error.message}; no ${one} was written.`);
    throw cannotRead(file, error);
  });
  if (check.interrupted) throw new Interrupted(`Import interrupted while checking ${file}; no ${one} was written.`);
  const { problems } = check;
  if (problems.count > 0) {
    for (const problem of problems.shown) out.err(`${file}: ${problem}`);
    const hidden = problems.count - problems.shown.length;
    if (hidden > 0) out.err(`${file}: ... and ${hidden} more problem${hidden === 1 ? '' : 's'}`);
    const count = problems.count;
    throw new AdminFailure(`${file} has ${count} problem${count === 1 ? '' : 's'}; no ${one} was written.`);
  }
  const total = check.count;
  const started = performance.now();
  const progress = importProgress(total, many, out);
  const tally = new ImportTally();
  // Listening is what tells the command line this command stops cleanly on Ctrl-C.
  signal?.addEventListener('abort', () => out.progressDone?.(), { once: true });
  let batchStart = 0;
  try {
    for await (const batch of recordBatches(kind, file, signal)) {
      const start = batchStart;
      batchStart += batch.length;
      await beforeBatch();
      await mapBounded(
        batch,
        IMPORT_CONCURRENCY,
        async (record, index) => {
          const isNew = await create(record);
          tally.add(record.id, start + index, isNew);
          progress.oneDone();
          return isNew;
        },
        signal,
      );
      if (signal?.aborted) break;
    }
  } catch (caught) {
    // A clock refused once records were written stops the import as a failed write does.
    const error = caught instanceof ClockRefused && tally.written > 0 ? new PartialFailure(caught, 0) : caught;
    if (error instanceof AdminFailure) throw error;
    if (!(error instanceof PartialFailure)) throw cannotRead(file, error);
    throw new AdminFailure(
      `Import stopped: ${error.message}. ${tally.written} of ${total} ${many} were handled before it ` +
        `stopped; running the import again is safe, since existing ${many} are skipped.`,
      { cause: error.cause },
    );
  } finally {
    out.progressDone?.();
  }
  if (signal?.aborted) {
    throw new Interrupted(
      `Import interrupted: ${tally.written} of ${total} ${many} written (${tally.created} created, ${tally.skippedText()}). ` +
        `To resume, run the same import again: ${many} already there are skipped.`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  out.out(`Imported ${file} into ${target.label}: ${tally.created} created, ${tally.skippedText()}.`);
  // On stderr: a timing is not part of the result, and differs from run to run.
  out.err(`${total} ${many} in ${seconds.toFixed(1)} s (${Math.round(total / Math.max(seconds, 0.001))} ${many}/s).`);
}

/** Counts finished writes and redraws the progress line at each whole percent. */
function importProgress(total: number, many: string, out: Output): { oneDone(): void } {
  let done = 0;
  let shownPercent = -1;
  return {
    oneDone() {
      done++;
      const percent = Math.floor((done * 100) / total);
      if (!out.progress || percent === shownPercent) return;
      shownPercent = percent;
      out.progress(`Importing: ${done} of ${total} ${many} (${percent}%)`);
    },
  };
}
