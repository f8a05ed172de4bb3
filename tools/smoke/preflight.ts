// What must hold before the checks are worth running: something answers at the URL, it is the
// API's base URL (its base path included), and the key given is accepted. Each is one line with
// the fix, instead of every check failing the same way.
import { BASE_PATH } from '../../lib/contract/routes';
import { isWellFormedApiKey, KEY_PREFIX } from '../../lib/core/access/key-format';
import { shownInput } from '../shared/shown-input';
import { errorMessage, EXIT_FAILURE, EXIT_USAGE } from '../shared/errors';
import { recordedStacks, stackAt, stateDir, type StackDynamo } from '../shared/stack-state';
import { bearer, call, type Answer } from './http';

/** How long one preflight request may take: a server that accepts but never answers is "down" too. */
const PREFLIGHT_TIMEOUT_MS = 15_000;

/** Where the URL came from, for what the message advises. */
export type UrlSource = 'local' | 'url' | 'stage';

/** A preflight that did not hold; its message is the whole story, with the fix. */
export class PreflightFailed extends Error {
  override readonly name = 'PreflightFailed';
  constructor(
    message: string,
    /** 2 for what the command line pointed at; 1 for a deployed stage's API found wanting. */
    readonly exitCode: number = EXIT_USAGE,
  ) {
    super(message);
  }
}

function errorCode(text: string): string | undefined {
  try {
    const code = (JSON.parse(text) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}

async function ask(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Answer | { unreachable: string }> {
  try {
    return await call(baseUrl, method, path, { headers, signal: AbortSignal.timeout(PREFLIGHT_TIMEOUT_MS) });
  } catch (error) {
    // fetch fails only when no HTTP answer came (refused, reset, timed out, a port it will not
    // use): its cause says which.
    const cause = (error as { cause?: unknown }).cause ?? error;
    const code = (cause as { code?: unknown }).code;
    return { unreachable: typeof code === 'string' ? code : errorMessage(cause) };
  }
}

/** Something answers at `baseUrl`, and it answers a keyless request to the list as the API does (401). */
export async function checkBaseUrl(baseUrl: string, source: UrlSource): Promise<void> {
  const shown = shownInput(baseUrl);
  const answer = await ask(baseUrl, 'GET', '/store/orders', {});
  if ('unreachable' in answer) {
    throw new PreflightFailed(
      source === 'local'
        ? `Nothing answers at ${shown} (${answer.unreachable}): start the local stack with \`npm start\` in another terminal first, or give --url or --stage`
        : source === 'url'
          ? `Nothing answers at ${shown} (${answer.unreachable}): check --url and that the API is running`
          : `The API of the stage at ${shown} does not answer (${answer.unreachable}): check your network, or that the stage is deployed`,
      source === 'stage' ? EXIT_FAILURE : EXIT_USAGE,
    );
  }
  if (answer.status === 401 && errorCode(answer.text) === 'UNAUTHORIZED') return;
  const fix = baseUrl.endsWith(BASE_PATH)
    ? 'check --url: it is the base URL npm start or the stack output ApiUrl shows'
    : `the base URL ends in the base path, e.g. ${shownInput(`${baseUrl}${BASE_PATH}`)}`;
  throw new PreflightFailed(
    `${shown} is not the Store Orders API's base URL (GET /store/orders under it without a key answered ${answer.status}, not 401): ${fix}`,
    source === 'stage' ? EXIT_FAILURE : EXIT_USAGE,
  );
}

/**
 * The key is accepted: a DELETE of an id no order can have is refused with 400 before any order is
 * read, and changes nothing. It costs one request of the key's budget.
 */
export async function checkKey(baseUrl: string, key: string, source: UrlSource): Promise<void> {
  const create = `create one with \`npm run admin -- ${source === 'stage' ? '--stage STAGE ' : ''}keys create --plan free\``;
  if (!isWellFormedApiKey(key)) {
    // Never echoed: it may be a real key with a typo.
    throw new PreflightFailed(
      `--key is not an API key (they start with ${KEY_PREFIX} and carry a checksum): ${create}`,
    );
  }
  const answer = await ask(baseUrl, 'DELETE', '/store/orders/not-a-number', bearer(key));
  if ('unreachable' in answer)
    throw new PreflightFailed(`${shownInput(baseUrl)} stopped answering (${answer.unreachable})`);
  if (answer.status === 401) {
    throw new PreflightFailed(
      `The API refused --key (401 UNAUTHORIZED: unknown or revoked): ${create}, or leave --key out`,
    );
  }
  if (answer.status === 429) {
    const wait = answer.headers.get('Retry-After');
    throw new PreflightFailed(
      `--key is over its rate limit (429 ${errorCode(answer.text) ?? ''}): run again in ${wait ?? 'a few'} s, or use another key`,
    );
  }
}

/**
 * The DynamoDB of the local stack at `baseUrl`, as the stack itself recorded it (tools/shared/stack-state.ts).
 * The smoke command makes its keys there and nowhere else: an API no `npm start` of this checkout
 * runs (a deployed one, an older stack) gets none, so no key lands in a DynamoDB that is not the API's own.
 */
export async function findStackDynamo(
  baseUrl: string,
  source: UrlSource,
  env?: NodeJS.ProcessEnv,
): Promise<StackDynamo> {
  const found = stackAt(baseUrl, (await recordedStacks(env)).running);
  if (found !== undefined) return found;
  const shown = shownInput(baseUrl);
  throw new PreflightFailed(
    source === 'local'
      ? `The API at ${shown} is no local stack this checkout's \`npm start\` runs (none is recorded in ${stateDir(env)}), so the smoke command cannot make its keys there: restart the local stack with this version's \`npm start\`, or give --stage`
      : `${shown} is no local stack this checkout's \`npm start\` runs, so the smoke command cannot make its keys there: for a deployed API give --stage STAGE as well`,
  );
}
