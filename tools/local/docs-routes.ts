import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildOpenApiDocument, openApiJson, type JsonObject } from '../../lib/contract/openapi/document';
import { buildV2OpenApiDocument } from '../../lib/contract/openapi/v2';
import { BASE_PATH, V2_BASE_PATH } from '../../lib/contract/routes';
import type { PublicRoute } from './gateway';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

/**
 * Redoc's sidebar credit loads Redocly's logo from their CDN, which this page's policy refuses (a
 * console error), and which tells a third party the page was opened. With that address emptied the
 * image fails without a request, Redoc drops it (onError) and the credit stays as a text link.
 */
const REDOCLY_CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** Redoc's bundle from the project's node_modules (npm scripts and tests run from its root): it works offline. */
function redocBundle(): string {
  const resolve = createRequire(join(process.cwd(), 'package.json')).resolve;
  return readFileSync(resolve('redoc/bundles/redoc.standalone.js'), 'utf8').split(REDOCLY_CDN_LOGO).join('');
}

/**
 * The page stays on this origin, so it works (and looks the same) offline. Redoc's styles are
 * injected inline and its search index runs in a blob: worker.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "font-src 'self' data:",
].join('; ');

/**
 * Redoc lets inline code break anywhere (`word-break: break-word`), which splits error codes
 * mid-word in narrow table cells (ORDER_NOT_FOU|ND); in tables, a code is kept on one line.
 * The empty icon spares the browser a request for /favicon.ico (a 404, logged as an error).
 */
const PAGE_HEAD = `<style>
body { margin: 0; padding: 0; }
td code, th code { white-space: nowrap !important; word-break: normal !important; overflow-wrap: normal !important; }
</style>
<link rel="icon" href="data:,">`;

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
${PAGE_HEAD}
</head>
<body>
<redoc spec-url="${BASE_PATH}${OPENAPI_PATH}"></redoc>
<script src="${BASE_PATH}${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;
}

/**
 * The document as this stack serves it: the local server's `port` variable names the port the
 * stack listens on, so "try it" addresses and copied URLs are right whatever PORT was chosen.
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

/** Each document's JSON, written once per port it is served on. */
function documentJson(document: JsonObject, server: () => Server | undefined): () => string {
  const served = new Map<number | undefined, string>();
  return () => {
    const port = listeningPort(server());
    const text = served.get(port) ?? openApiJson(servedDocument(document, port));
    served.set(port, text);
    return text;
  };
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * The routes the local gateway answers itself, without an API key: each version's OpenAPI document
 * and a Redoc reference page that renders v1's. They are not part of the API's contract. `server` is
 * the stack's, read when a request comes, so the served documents give its real port.
 */
export function docsRoutes({ server = () => undefined }: { server?: () => Server | undefined } = {}): PublicRoute[] {
  const document = buildOpenApiDocument();
  const title = String((document.info as JsonObject | undefined)?.title ?? 'API reference');
  let bundle: string | undefined;
  const routes: [string, Record<string, string>, () => string, string?][] = [
    [OPENAPI_PATH, JSON_TYPE, documentJson(document, server)],
    [OPENAPI_PATH, JSON_TYPE, documentJson(buildV2OpenApiDocument(), server), V2_BASE_PATH],
    [
      DOCS_PATH,
      { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY },
      () => page(title),
    ],
    [
      REDOC_SCRIPT_PATH,
      { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'max-age=3600' },
      () => (bundle ??= redocBundle()),
    ],
  ];
  return routes.map(([path, headers, body, basePath]) => ({
    method: 'GET',
    path,
    ...(basePath ? { basePath } : {}),
    respond: () => ({ statusCode: 200, headers, body: body() }),
  }));
}
