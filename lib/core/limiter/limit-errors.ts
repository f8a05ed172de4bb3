// The limiter's own failures, each with the code it is answered with (lib/edge/http-errors.ts).
import { CodedError } from '../../contract/errors';

/**
 * The request's minute ended, and the key's next minute started, before the limiter could count
 * the request (DynamoDB's replies were slow): it is neither served from the next minute's limit
 * nor refused in its name. Answered 503, like a counting write that got no reply in time.
 */
export class MinutePassedError extends CodedError {
  override readonly name = 'MinutePassedError';
  constructor(readonly key: string) {
    super('SERVICE_UNAVAILABLE', `The minute of a request on ${key} ended before it could be counted`);
  }
}

/**
 * The request had no time left to be counted and then served before its deadline (DynamoDB's
 * replies were slow): it was not counted, or its slot was given back. Answered 503 at once, so the
 * quota is not spent on a request that would end 503 at the function deadline anyway.
 */
export class NoTimeToServeError extends CodedError {
  override readonly name = 'NoTimeToServeError';
  constructor(readonly key: string) {
    super('SERVICE_UNAVAILABLE', `A request on ${key} had no time left to be served before its deadline`);
  }
}

/**
 * The key's limiter item changed under every one of the request's writes (other requests of the
 * key, each in a minute of its own, won each race): contention, not a bug, so answered 503 with
 * `Retry-After` like any dependency that could not serve in time; the request is counted nowhere.
 */
export class ItemKeptChangingError extends CodedError {
  override readonly name = 'ItemKeptChangingError';
  constructor(readonly key: string) {
    super('SERVICE_UNAVAILABLE', `Rate limit item ${key} kept changing`);
  }
}

/**
 * The key was revoked: `keys revoke` marks the key's limiter items, and the admitting write, which
 * every request with a key makes, meets the mark. Answered 401 like any revoked key, whatever the
 * authorizer's cached answer says; counted nowhere.
 */
export class KeyRevokedError extends CodedError {
  override readonly name = 'KeyRevokedError';
  constructor(readonly key: string) {
    super('UNAUTHORIZED', `The key of ${key} is revoked`);
  }
}
