// What every file in bench/suites/ exports: a name and a run that returns table rows plus the raw
// figures written to bench/results.json.

/** One line of the printed table. */
export type Row = [figure: string, subject: string, measured: string, against: string];

export interface BenchContext {
  /** `--quick`: smaller sizes and fewer iterations, a check that everything still runs. */
  quick: boolean;
  /** The embedded DynamoDB-compatible server the suites share (each makes its own tables). */
  endpoint: string;
  /** A scratch folder, removed after the run. */
  outDir: string;
  /** Progress to stderr, so a long step is visibly alive. */
  log(text: string): void;
}

export interface Suite {
  name: string;
  run(context: BenchContext): Promise<{ rows: Row[]; figures: unknown }>;
}
