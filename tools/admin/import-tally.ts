/** Skipped ids named in the result line; the rest are counted. */
const SKIPPED_IDS_SHOWN = 5;

/** What the import did so far, for its result line and for the line an interruption prints. */
export class ImportTally {
  created = 0;
  skipped = 0;
  /** The first skipped orders in file order, whichever write finished first. */
  private readonly firstSkipped: { position: number; id: string }[] = [];

  get written(): number {
    return this.created + this.skipped;
  }

  /** `position` is the order's place in the file: writes run concurrently and finish in any order. */
  add(id: string, position: number, isNew: boolean): void {
    if (isNew) {
      this.created++;
      return;
    }
    this.skipped++;
    this.firstSkipped.push({ position, id });
    this.firstSkipped.sort((a, b) => a.position - b.position);
    this.firstSkipped.length = Math.min(this.firstSkipped.length, SKIPPED_IDS_SHOWN);
  }

  /** The skipped orders in a few words: how many, and the first few ids. */
  skippedText(): string {
    if (this.skipped === 0) return '0 skipped';
    const more = this.skipped - this.firstSkipped.length;
    const ids = this.firstSkipped.map((shown) => shown.id).join(', ');
    return (
      `${this.skipped} skipped (already there, never overwritten: ${ids}` + `${more > 0 ? ` and ${more} more` : ''})`
    );
  }
}
