/**
 * The data browser and live reload in a real browser (Debian's chromium through playwright-core): mashlib
 * served by svc renders a profile document and a container listing, a module browser loads with its
 * stylesheet, and a page reloads when its file is edited on disk. Screenshots go to test-output/databrowser/.
 * Without chromium the test is skipped, except in CI (CI=true), where it fails: scripts/setup-system.sh
 * installs chromium there.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const OUTPUT = join(import.meta.dirname, '..', '..', 'test-output', 'databrowser');

const PROFILE = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<#me> a foaf:Person ; foaf:name "Dana Example" ; foaf:nick "dana" .
`;
const NOTES = '<#n1> <http://purl.org/dc/terms/title> "first note" .\n';

/** A module data browser as another origin would serve it: it reads the page's resource as Turtle. */
const TEST_MODULE = `const root = document.getElementById('mashlib');
const response = await fetch(location.href, { headers: { accept: 'text/turtle' } });
root.dataset.type = response.headers.get('content-type');
root.textContent = await response.text();
`;
const TEST_STYLE = '#mashlib { border: 3px dotted rgb(255, 0, 0); white-space: pre; }';

async function serveModule(): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    // Module scripts from another origin are fetched with CORS, as from a CDN.
    const cors = { 'access-control-allow-origin': '*' };
    if (path === '/browser.js') response.writeHead(200, { 'content-type': 'text/javascript', ...cors }).end(TEST_MODULE);
    else if (path === '/browser.css') response.writeHead(200, { 'content-type': 'text/css', ...cors }).end(TEST_STYLE);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` };
}

async function put(svc: RunningSvc, path: string, body: string, type = 'text/turtle'): Promise<void> {
  const response = await fetch(svc.base + path, { method: 'PUT', headers: { 'content-type': type }, body });
  if (response.status >= 300) throw new Error(`PUT ${path}: ${response.status} ${await response.text()}`);
}

/** A page that records uncaught errors and CSP violations, so a test can show they did not happen. */
async function openPage(browser: Browser): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) problems.push(message.text());
  });
  return { page, problems };
}

describe.skipIf(!hasChromium)('the data browser in chromium', () => {
  let local: RunningSvc;
  let module: RunningSvc;
  let moduleHost: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    await mkdir(OUTPUT, { recursive: true });
    moduleHost = await serveModule();
    [local, module] = await Promise.all([
      startSvc(['--public', '--conneg', '--databrowser', '--ui-shell', '--idp', '--live-reload']),
      startSvc(['--public', '--databrowser-module', `${moduleHost.origin}/browser.js`]),
    ]);
    for (const svc of [local, module]) {
      await put(svc, '/people/dana.ttl', PROFILE);
      await put(svc, '/people/notes.ttl', NOTES);
    }
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    moduleHost?.server.close();
    await Promise.all([local?.stop(), module?.stop()]);
  });

  it('renders a profile document with mashlib served by svc', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${local.base}/people/dana.ttl`);
    await page.getByText('Dana Example').first().waitFor({ timeout: 30_000 });
    await expect(page.locator('#svc-shell-url').textContent()).resolves.toBe(`${local.base}/people/dana.ttl`);
    await page.screenshot({ path: join(OUTPUT, 'profile.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('renders a container listing with its members', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${local.base}/people/`);
    await page.locator('#OutlineView').getByText('notes.ttl').first().waitFor({ timeout: 30_000 });
    await expect(page.locator('#OutlineView').getByText('dana.ttl').count()).resolves.toBeGreaterThan(0);
    await page.screenshot({ path: join(OUTPUT, 'container.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('shows the UI shell, whose login goes to the built-in identity provider', async () => {
    const { page } = await openPage(browser);
    await page.goto(`${local.base}/people/notes.ttl`);
    await expect(page.locator('#svc-shell-up').getAttribute('href')).resolves.toBe(`${local.base}/people/`);
    const login = page.locator('#svc-shell-login');
    await login.waitFor({ state: 'visible', timeout: 30_000 });
    await login.click();
    await page.waitForURL((url) => url.pathname === '/idp/auth', { timeout: 30_000 });
    await expect(page.locator('input[type=password]').count()).resolves.toBe(1);
    await page.close();
  }, 60_000);

  it('loads a module browser and its stylesheet, which reads the data as Turtle', async () => {
    const { page, problems } = await openPage(browser);
    await page.goto(`${module.base}/people/notes.ttl`);
    const root = page.locator('#mashlib');
    await page.waitForFunction(() => document.getElementById('mashlib')?.textContent?.includes('first note'), null, { timeout: 30_000 });
    await expect(root.getAttribute('data-type')).resolves.toMatch(/^text\/turtle/);
    await expect(root.evaluate((element) => getComputedStyle(element).borderTopStyle)).resolves.toBe('dotted');
    await page.screenshot({ path: join(OUTPUT, 'module.png') });
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('reloads a page when its file is edited on disk', async () => {
    const { page } = await openPage(browser);
    await page.goto(`${local.base}/people/notes.ttl`);
    await page.waitForFunction(() => document.documentElement.dataset.liveReload === 'connected', null, { timeout: 30_000 });
    await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
    const reloaded = page.waitForEvent('load', { timeout: 30_000 });
    await writeFile(join(local.root, 'people', 'notes.ttl'), NOTES + '<#n2> <http://purl.org/dc/terms/title> "second note" .\n');
    await reloaded;
    await expect(page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).resolves.toBeUndefined();
    await page.getByText('second note').first().waitFor({ timeout: 30_000 });
    await page.close();
  }, 60_000);
});
