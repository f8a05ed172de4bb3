// The limiter's own failure, turned into an HTTP answer at the edge (lib/edge/http-errors.ts).

/**
 * The request's minute ended, and the key's next minute started, before the limiter could count
 * the request (DynamoDB's replies were slow): it is neither served from the next minute's limit
 * nor refused in its name. Answered 503, like a counting write that got no reply in time.
 */
export class MinutePassedError extends Error {
  override readonly name = 'MinutePassedError';
  constructor(readonly key: string) {
    super(`The minute of a request on ${key} ended before it could be counted`);
  }
}
