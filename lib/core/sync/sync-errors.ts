// Domain errors of the v2 listing's query, each with the code it is answered with; the HTTP edge
// maps the code to a status (400).
import { CodedError } from '../../contract/errors';

/** A query parameter that is unknown, repeated, or has a value it cannot take. */
export class InvalidQueryError extends CodedError {
  override readonly name = 'InvalidQueryError';
  constructor(
    readonly parameter: string,
    reason: string,
  ) {
    super('INVALID_QUERY', `${parameter}: ${reason}`);
  }

  /** The answer says which parameter, and what is wrong with it. */
  override answerMessage(): string {
    return this.message;
  }
}

/** A cursor this API did not issue, one altered since, or one given with other filters than its own. */
export class InvalidCursorError extends CodedError {
  override readonly name: string = 'InvalidCursorError';
  constructor(reason: string) {
    super('INVALID_CURSOR', `cursor: ${reason}`);
  }
}

/**
 * A cursor sealed with neither key the deployment holds: not issued by this API, altered, sealed with
 * a key rotated out, or with a key newer than the ones this container read (lib/root/cursor-key.ts
 * then reads them again before refusing it).
 */
export class UnknownCursorKeyError extends InvalidCursorError {
  override readonly name = 'UnknownCursorKeyError';
  constructor() {
    super('not issued by this API, or altered');
  }
}
