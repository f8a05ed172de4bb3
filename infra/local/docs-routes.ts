import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { buildOpenApiDocument, openApiJson, type JsonObject } from '../../lib/contract/openapi/document';
import { BASE_PATH } from '../../lib/contract/routes';
import type { PublicRoute } from './gateway';

export const OPENAPI_PATH = '/openapi.json';
export const DOCS_PATH = '/docs';
export const REDOC_SCRIPT_PATH = '/docs/redoc.standalone.js';

/**
 * Redoc's standalone bundle from the project's own node_modules, so the page works offline. It is
 * resolved from the working directory (npm scripts and tests run from the repository root).
 */
function redocBundle(): string {
  const resolve = createRequire(join(process.cwd(), 'package.json')).resolve;
  return readFileSync(resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
}

/**
 * Redoc's sidebar credit loads a logo from Redocly's CDN; the policy keeps the page on this
 * origin, so it works (and looks the same) offline. Redoc's styles are injected inline and its
 * search index runs in a blob: worker.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "font-src 'self' data:",
].join('; ');

function page(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<redoc spec-url="${BASE_PATH}${OPENAPI_PATH}"></redoc>
<script src="${BASE_PATH}${REDOC_SCRIPT_PATH}"></script>
</body>
</html>
`;
}

/**
 * The routes the local gateway answers itself, without an API key: the OpenAPI document and a
 * Redoc reference page that renders it. They are not part of the API's contract.
 */
export function docsRoutes(document: JsonObject = buildOpenApiDocument()): PublicRoute[] {
  const json = openApiJson(document);
  let bundle: string | undefined;
  const title = String((document.info as JsonObject | undefined)?.title ?? 'API reference');
  return [
    {
      method: 'GET',
      path: OPENAPI_PATH,
      respond: () => ({ statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: json }),
    },
    {
      method: 'GET',
      path: DOCS_PATH,
      respond: () => ({ statusCode: 200, headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': CONTENT_SECURITY_POLICY },
        body: page(title), }),
    },
    {
      method: 'GET',
      path: REDOC_SCRIPT_PATH,
      respond: () => {
        bundle ??= redocBundle();
        return { statusCode: 200, headers: { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'max-age=3600' }, body: bundle };
      },
    },
  ];
}
