// The smoke suite's view of HTTP: one request, its answer read whole, and the checks every Error
// answer must pass. Plain fetch, as a client would call the API.
import { fail, ok as must } from 'node:assert';
import { ERROR_CODES, type ErrorCode } from '../../lib/contract/errors';

// A check that does not hold is node's AssertionError, its message printed after the check's name.
export { AssertionError as CheckFailed, fail, ok as must } from 'node:assert';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export async function call(
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; signal?: AbortSignal } = {},
): Promise<Answer> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: options.headers ?? {},
    ...(options.body !== undefined ? { body: options.body } : {}),
    redirect: 'manual',
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

export const bearer = (key: string): Record<string, string> => ({ Authorization: `Bearer ${key}` });

/** The status, a JSON content type and an Error body `{code, message, status}` with this code. */
export function mustBeError(answer: Answer, status: number, code: ErrorCode): void {
  const brief = answer.text.length > 200 ? `${answer.text.slice(0, 200)}...` : answer.text;
  must(answer.status === status, `expected ${status} ${code}, got ${answer.status}: ${brief}`);
  must(/^application\/json\b/.test(answer.headers.get('content-type') ?? ''), `${status} is not application/json`);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    fail(`${status} body is not JSON: ${brief}`);
  }
  const record = body as Record<string, unknown>;
  must(
    typeof body === 'object' && body !== null && Object.keys(record).sort().join() === 'code,message,status',
    `${status} body is not an Error {code, message, status}: ${brief}`,
  );
  must(ERROR_CODES.includes(code) && record.code === code, `expected code ${code}, got ${String(record.code)}`);
  must(
    record.status === status && typeof record.message === 'string' && record.message !== '',
    `${status} Error body is inconsistent: ${brief}`,
  );
}

export function header(answer: Answer, name: string): string {
  const value = answer.headers.get(name);
  must(value !== null, `no ${name} header on the ${answer.status}`);
  return value;
}
