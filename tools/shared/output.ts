// Where a command writes: results to stdout, diagnostics to stderr (so `--json` output stays
// clean), and progress to a terminal only, where it is redrawn in place and never piped or logged.

export interface Output {
  out(line: string): void;
  err(line: string): void;
  /** How far a long command is; absent when nobody is watching (not a terminal). */
  progress?(text: string): void;
  /** Clears the progress line, before the result is written. */
  progressDone?(): void;
}

/** Progress redrawn on one line of a terminal; undefined when the stream is not a terminal. */
export function terminalProgress(stream: {
  isTTY?: boolean;
  write(text: string): unknown;
}): Pick<Output, 'progress' | 'progressDone'> {
  if (!stream.isTTY) return {};
  return {
    progress: (text) => stream.write(`\r\u001b[2K${text}`),
    progressDone: () => stream.write('\r\u001b[2K'),
  };
}

export const processOutput: Output = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  ...terminalProgress(process.stderr),
};

/** Left-aligned columns under a header, for the human-readable listings. */
export function columns(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
