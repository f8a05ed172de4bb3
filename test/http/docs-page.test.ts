// The API reference page in a real browser: a Chromium found by test/support/chromium.ts renders
// the page of the local stack, offline. Without a browser, the browser tests do not run and say
// why, except in CI (CI=true), where .ci/run installs Chromium and a missing one fails the run.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildOpenApiDocument, type JsonObject } from '../../lib/contract/openapi/document';
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

/**
 * The reference page, recording every request that would leave the machine and every console
 * error. Loading Redoc is the costly part (seconds of CPU), so the tests share one page: the
 * first reads it as loaded, the Errors table tests resize it.
 */
let reference: ReturnType<typeof openReference> | undefined;
async function openReference() {
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
  const response = await page.goto(`${stack.baseUrl}/v1/docs`);
  expect(response?.status()).toBe(200);
  for (const operationId of ['listOrders', 'cancelOrder']) {
    await page.locator(`[data-section-id="operation/${operationId}"]`).waitFor({ timeout: 30_000 });
  }
  return { page, foreign, consoleErrors };
}

browserTest(
  '/v1/docs renders both operations with Redoc from node_modules: no request leaves the machine, no console error' +
    notRun,
  async () => {
    reference ??= openReference();
    const { page, foreign, consoleErrors } = await reference;
    const listOrders = await page.locator('[data-section-id="operation/listOrders"]').innerText();
    const cancelOrder = await page.locator('[data-section-id="operation/cancelOrder"]').innerText();
    expect(listOrders).toContain('List every order in the store');
    expect(cancelOrder).toContain('Cancel a pending order');
    expect(cancelOrder).toContain('409');
    // The sidebar credit stays, without Redocly's logo from their CDN.
    expect(await page.getByText('API docs by Redocly').count()).toBe(1);
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
    reference ??= openReference();
    const { page } = await reference;
    await page.setViewportSize({ width, height: 900 });
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
