import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument, openApiJson, type JsonObject } from '../../lib/contract/openapi/document';
import { buildV2OpenApiDocument } from '../../lib/contract/openapi/v2';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import { CACHE_DIR } from '../shared/local-config';
import type { PublicRoute } from './gateway';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';

/** Redocly's CLI and the page's template, from the project's root (npm scripts and tests run there). */
const REDOCLY = join(process.cwd(), 'node_modules/@redocly/cli');
const TEMPLATE = join(process.cwd(), 'tools/local/docs-page.html');
const PAGES = join(CACHE_DIR, 'docs');

/**
 * Redoc's sidebar credit loads Redocly's logo from their CDN, which the policy below refuses (a
 * console error). With its address emptied the image fails without a request, Redoc drops it
 * (onError) and the credit stays as a text link.
 */
const REDOCLY_CDN_LOGO = /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg/g;

/**
 * The built page has Redoc's scripts and styles inline and makes no request of its own elsewhere;
 * the policy keeps it so (it works, and looks the same, offline, and tells no third party it was opened).
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self' 'unsafe-inline'",
  "worker-src 'self' blob:",
  "font-src 'self' data:",
].join('; ');
const HTML_TYPE = { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY };
const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * The document as this stack serves it: the local server's `port` variable names the port the
 * stack listens on, so copied URLs are right whatever PORT was chosen.
 */
function servedDocument(document: JsonObject, port: number | undefined): JsonObject {
  if (port === undefined) return document;
  const servers = (document.servers as JsonObject[] | undefined)?.map((server) => {
    const variables = server.variables as JsonObject | undefined;
    const variable = variables?.port as JsonObject | undefined;
    if (!variables || !variable) return server;
    return { ...server, variables: { ...variables, port: { ...variable, default: String(port) } } };
  });
  return servers ? { ...document, servers } : document;
}

export function listeningPort(server: Server | undefined): number | undefined {
  const address = server?.address();
  return typeof address === 'object' && address ? address.port : undefined;
}

/**
 * `redocly build-docs` of a version's document (about two seconds of CPU), kept in
 * node_modules/.cache under the hash of what makes it: built once per document content, CLI version
 * and template; the version's older pages are removed.
 */
async function buildPage(version: string, json: string): Promise<string> {
  const [cli, template] = await Promise.all([readFile(join(REDOCLY, 'package.json')), readFile(TEMPLATE)]);
  const hash = createHash('sha256').update(cli).update(template).update(json).digest('hex').slice(0, 32);
  const page = join(PAGES, `${version}-${hash}.html`);
  const cached = await readFile(page, 'utf8').catch(() => undefined);
  if (cached !== undefined) return cached;
  // Written under names of this process's own, then renamed: stacks building at once never read half a page.
  const [input, output] = [`${page}.${process.pid}.json`, `${page}.${process.pid}.tmp`];
  await mkdir(PAGES, { recursive: true });
  await writeFile(input, json);
  try {
    await promisify(execFile)(
      process.execPath,
      [join(REDOCLY, 'bin/cli.js'), 'build-docs', input, '--inlineBundle', '--template', TEMPLATE, '-o', output],
      // Telemetry off, in the CLI and in the page it builds (Redoc's own, from the reader's browser).
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
    );
    const built = (await readFile(output, 'utf8')).replace(REDOCLY_CDN_LOGO, 'data:,');
    await writeFile(output, built);
    await rename(output, page);
    const older = (await readdir(PAGES)).filter((name) => name.startsWith(`${version}-`) && name.endsWith('.html'));
    await Promise.all(older.filter((name) => name !== basename(page)).map((name) => rm(join(PAGES, name))));
    return built;
  } finally {
    await Promise.all([rm(input, { force: true }), rm(output, { force: true })]);
  }
}

/** JSON as build-docs embeds the document in its page: with `<` escaped, so no `</script>` in it ends the script. */
const embedded = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The routes the local gateway answers itself, without an API key: each version's OpenAPI document
 * and its reference page. They are not part of the API's contract. `server` is the stack's, read
 * when a request comes, so the served documents give its real port.
 */
export function docsRoutes({ server = () => undefined }: { server?: () => Server | undefined } = {}): PublicRoute[] {
  return [
    { version: 'v1', basePath: BASE_PATH, document: buildOpenApiDocument() },
    { version: 'v2', basePath: V2_BASE_PATH, document: buildV2OpenApiDocument() },
  ].flatMap(({ version, basePath, document }) => {
    const servedNow = () => servedDocument(document, listeningPort(server()));
    let built: Promise<string> | undefined;
    // The page embeds the document as generated, so one build serves every port: its servers are put
    // right for this stack's port as it is served. A failed build is tried again on the next request.
    const page = async () => {
      built ??= buildPage(version, openApiJson(document)).catch((error: unknown) => {
        built = undefined;
        throw error;
      });
      return (await built).replace(embedded(document.servers), embedded(servedNow().servers));
    };
    return [
      {
        method: 'GET',
        basePath,
        path: OPENAPI_PATH,
        respond: () => ({ statusCode: 200, headers: JSON_TYPE, body: openApiJson(servedNow()) }),
      },
      {
        method: 'GET',
        basePath,
        path: DOCS_PATH,
        respond: async () => ({ statusCode: 200, headers: HTML_TYPE, body: await page() }),
      },
    ] as const;
  });
}
