// What every file in bench/suites/ exports. Its own file, so the suites import nothing of
// bench/report.ts, which imports their figures' types: imports run one way.

/** A name, and a run that returns the figures stored under it in bench/results.json. */
export interface Suite<Figures> {
  name: string;
  run(context: {
    /** `--quick`: smaller sizes and fewer iterations, a check that everything still runs. */
    quick: boolean;
    /** `--sync-1m`: the sync suite grows its store to a million orders too (most of the run's time). */
    syncMillion: boolean;
    /** `--orders <n>`: the listing suite's sizes instead of its own (a narrow run, never written to the file). */
    orders?: number[];
    /** The embedded DynamoDB-compatible server the suites share (each makes its own tables). */
    endpoint: string;
    /** A scratch folder, removed after the run. */
    outDir: string;
    /** Progress to stderr, so a long step is visibly alive. */
    log(text: string): void;
  }): Promise<Figures>;
}
