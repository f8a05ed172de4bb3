// Domain errors of the v2 listing's query; the HTTP edge maps them to 400s.
/** A query parameter that is unknown, repeated, or has a value it cannot take. */
export class InvalidQueryError extends Error {
  override readonly name = 'InvalidQueryError';
  constructor(
    readonly parameter: string,
    reason: string,
  ) {
    super(`${parameter}: ${reason}`);
  }
}

/** A cursor this API did not issue, one altered since, or one given with other filters than its own. */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  constructor(reason: string) {
    super(`cursor: ${reason}`);
  }
}
