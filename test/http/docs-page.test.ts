// The API reference page in a real browser: Debian's Chromium (installed by
// scripts/ensure-chromium.sh before jest) renders the page of the local stack, offline.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { openApiJson } from '../../lib/contract/openapi/document';
import { docsRoutes } from '../../infra/local/docs-routes';
import { startLocalStack, type LocalStack } from '../support/local-stack';

let stack: LocalStack;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  stack = await startLocalStack({ publicRoutes: docsRoutes() });
  profile = mkdtempSync(join(tmpdir(), 'docs-chromium-'));
  browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
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

test('/v1/openapi.json is the generated document, without an API key', async () => {
  const response = await stack.call('GET', '/v1/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json');
  expect(await response.text()).toBe(openApiJson());
});

test('/v1/docs renders both operations with Redoc from node_modules, requesting nothing off this machine', async () => {
  const page = await browser.newPage();
  const foreign: string[] = [];
  await page.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin === stack.baseUrl || url.protocol === 'data:' || url.protocol === 'blob:') return route.continue();
    foreign.push(url.href);
    return route.abort();
  });
  const consoleErrors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  const response = await page.goto(`${stack.baseUrl}/v1/docs`);
  expect(response?.status()).toBe(200);
  for (const operationId of ['listOrders', 'cancelOrder']) {
    await page.locator(`[data-section-id="operation/${operationId}"]`).waitFor({ timeout: 30_000 });
  }
  const listOrders = await page.locator('[data-section-id="operation/listOrders"]').innerText();
  const cancelOrder = await page.locator('[data-section-id="operation/cancelOrder"]').innerText();
  expect(listOrders).toContain('List every order in the store');
  expect(cancelOrder).toContain('Cancel a pending order');
  expect(cancelOrder).toContain('409');
  expect(foreign).toEqual([]);
  // The one thing the page's policy blocks is Redoc's credit logo on Redocly's CDN; nothing fails.
  expect(consoleErrors.filter((text) => !text.includes('cdn.redoc.ly/redoc/logo-mini.svg'))).toEqual([]);
  if (process.env.DOCS_SCREENSHOT) await page.screenshot({ path: process.env.DOCS_SCREENSHOT, fullPage: false });
  await page.close();
}, 60_000);
