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

/**
 * The request had no time left to be counted and then served before its deadline (DynamoDB's
 * replies were slow): it was not counted, or its slot was given back. Answered 503 at once, so the
 * quota is not spent on a request that would end 503 at the function deadline anyway.
 */
export class NoTimeToServeError extends Error {
  override readonly name = 'NoTimeToServeError';
  constructor(readonly key: string) {
    super(`A request on ${key} had no time left to be served before its deadline`);
  }
}

/**
 * The key was revoked: `keys revoke` marks the key's limiter items, and the admitting write, which
 * every request with a key makes, meets the mark. Answered 401 like any revoked key, whatever the
 * authorizer's cached answer says; counted nowhere.
 */
export class KeyRevokedError extends Error {
  override readonly name = 'KeyRevokedError';
  constructor(readonly key: string) {
    super(`The key of ${key} is revoked`);
  }
}
