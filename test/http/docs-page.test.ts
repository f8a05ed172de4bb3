// The API reference pages of the local stack (built by `redocly build-docs`): what is served, here
// everywhere, and the pages in a real browser: a Chromium found by test/support/chromium.ts renders
// them offline. Without a browser, the browser tests do not run and say why, except in CI (CI=true),
// where .ci/run installs Chromium and a missing one fails the run.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildOpenApiDocument, type JsonObject } from '../../lib/contract/openapi/document';
import { buildV2OpenApiDocument } from '../../lib/contract/openapi/v2';
import { BASE_PATH, ROUTES, V2_BASE_PATH, V2_ROUTES, type Route } from '../../lib/contract/routes';
import { docsRoutes } from '../../tools/local/docs-routes';
import { findChromium } from '../support/chromium';
import { inCi } from '../support/ci';
import { startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let browser: BrowserContext;
let profile: string;

const chromiumLookup = findChromium();
const browserTest = chromiumLookup.found || inCi ? test : test.skip;
/** Appended to each browser test's name when it does not run, so the report says why. */
const notRun = browserTest === test ? '' : ` [not run: ${chromiumLookup.found ? '' : chromiumLookup.reason}]`;
if (!chromiumLookup.found && !inCi) {
  process.stderr.write(`docs-page.test.ts: the browser tests did not run: ${chromiumLookup.reason}\n`);
}

beforeAll(async () => {
  stack = await startLocalStack({ publicRoutes: docsRoutes({ server: () => stack?.app.server }) });
  if (!chromiumLookup.found) {
    if (inCi) throw new Error(`CI needs a browser for the API reference page: ${chromiumLookup.reason}`);
    return;
  }
  profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumLookup.path,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await stack?.close();
});

test('/v1/openapi.json is the generated document, without an API key, with the port this stack listens on', async () => {
  const response = await stack.call('GET', '/v1/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  const served = (await response.json()) as JsonObject;
  const { servers: generatedServers, ...generated } = buildOpenApiDocument();
  const { servers, ...rest } = served;
  expect(rest).toEqual(generated);
  // The stack runs on a free port, never the documented default: the served default is that port.
  const port = new URL(stack.baseUrl).port;
  expect(port).not.toBe('3000');
  const local = (servers as JsonObject[]).find((server) => String(server.url).includes('{port}'));
  expect(local?.variables).toMatchObject({ port: { default: port } });
  expect(String(local?.url).replace('{port}', port)).toBe(`${stack.baseUrl}/v1`);
  // Every other server is as generated.
  expect((servers as JsonObject[]).filter((server) => server !== local)).toEqual(
    (generatedServers as JsonObject[]).filter((server) => !String(server.url).includes('{port}')),
  );
});

const EDITIONS = [
  { basePath: BASE_PATH, routes: ROUTES, document: buildOpenApiDocument() },
  { basePath: V2_BASE_PATH, routes: V2_ROUTES, document: buildV2OpenApiDocument() },
];

test.each(EDITIONS)(
  '$basePath/docs is a page of its own, built from the document as served, loading nothing from elsewhere',
  async ({ basePath, document }) => {
    const response = await stack.call('GET', `${basePath}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'self';/);
    const html = await response.text();
    expect(html).toContain(`<title>${String((document.info as JsonObject).title)}</title>`);
    // The document embedded is the one served: its local server on this stack's port.
    const port = new URL(stack.baseUrl).port;
    expect(html).toContain(`"port":{"default":"${port}"`);
    // Redoc's scripts are inline: no script, style or font from a CDN, no Redocly logo.
    expect(html).not.toMatch(/<(script|link)\b[^>]*\b(src|href)="https?:/);
    expect(html).not.toContain('cdn.redoc.ly');
  },
  60_000,
);

/**
 * A reference page, recording every request that would leave the machine and every console
 * error. Loading Redoc is the costly part (seconds of CPU), so the tests share one page per
 * version: the first reads it as loaded, the Errors table tests resize v1's.
 */
const references = new Map<string, ReturnType<typeof openReference>>();
async function openReference(basePath: string) {
  const page = await browser.newPage();
  await page.setViewportSize({ width: 1280, height: 900 });
  const foreign: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== stack.baseUrl && url.protocol !== 'data:' && url.protocol !== 'blob:') foreign.push(url.href);
  });
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === stack.baseUrl || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    return route.abort();
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleErrors.push(message.text());
  });
  page.on('pageerror', (error) => consoleErrors.push(error.message));
  const response = await page.goto(`${stack.baseUrl}${basePath}/docs`);
  expect(response?.status()).toBe(200);
  return { page, foreign, consoleErrors };
}
const reference = (basePath: string) => {
  const opened = references.get(basePath) ?? openReference(basePath);
  references.set(basePath, opened);
  return opened;
};

/** Redoc's section of an operation: under its tag, named by its operationId. */
const operationSection = (route: Route) => `[data-section-id="/${route.tag}/${route.operationId.toLowerCase()}"]`;

browserTest.each(EDITIONS)(
  '$basePath/docs renders every operation with Redoc from node_modules: no request leaves the machine, no console error' +
    notRun,
  async ({ basePath, routes }) => {
    const { page, foreign, consoleErrors } = await reference(basePath);
    for (const route of routes) {
      // As a reader follows the sidebar: the operation's address on the same page.
      await page.goto(`${stack.baseUrl}${basePath}/docs#/${route.tag}/${route.operationId.toLowerCase()}`);
      const section = page.locator(operationSection(route));
      await section.waitFor({ timeout: 30_000 });
      expect(await section.innerText()).toContain(route.summary);
    }
    // The sidebar credit stays, as a text link, without Redocly's logo from their CDN.
    expect(await page.getByRole('link', { name: 'API docs by' }).count()).toBe(1);
    expect(await page.locator('img[src*="redoc.ly"]').count()).toBe(0);
    // Everything has settled: the credit's image is rendered after mount, and fails at once.
    await page.waitForLoadState('networkidle');
    expect(foreign).toEqual([]);
    expect(consoleErrors).toEqual([]);
    if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
  },
  60_000,
);

browserTest.each([800, 1280])(
  'at %i px, no code in the Errors table breaks across lines' + notRun,
  async (width) => {
    const { page } = await reference(BASE_PATH);
    await page.goto(`${stack.baseUrl}${BASE_PATH}/docs#/section/errors`);
    await page.setViewportSize({ width, height: 900 });
    await page.locator('td code').first().waitFor({ timeout: 30_000 });
    const codes = await page
      .locator('td code')
      .evaluateAll((elements) =>
        elements.map((code) => ({ text: code.textContent ?? '', lines: code.getClientRects().length })),
      );
    // The Errors table holds the whole catalogue, ORDER_NOT_FOUND and KEY_TEMPORARILY_BANNED included.
    expect(codes.map((code) => code.text)).toEqual(
      expect.arrayContaining(['ORDER_NOT_FOUND', 'KEY_TEMPORARILY_BANNED', 'SERVICE_UNAVAILABLE']),
    );
    expect(codes.filter((code) => code.lines !== 1)).toEqual([]);
  },
  60_000,
);
