/**
 * A real browser (Debian's chromium through playwright-core) completes the authorization-code flow of
 * svc --idp from a small app that uses @inrupt/solid-client-authn-browser: login page, consent page,
 * redirect back, then a DPoP-authenticated read of a private resource. Without chromium the test is
 * skipped, except in CI (CI=true), where it fails: scripts/setup-system.sh installs chromium there.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { bundleBrowserApp } from './browser-app/bundle.ts';
import { PASSWORD } from './support.ts';

const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Browser test app</title></head>
<body><button id="login">Log in</button><p id="status">loading</p><p id="webid"></p><p id="result"></p>
<script type="module" src="/app.js"></script></body></html>`;

/** Serves the page and the bundled app on a loopback port; the browser reaches it as http://localhost:<port> (a secure context). */
async function serveApp(script: string): Promise<{ server: Server; origin: string }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/app.js') {
      response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    } else {
      response.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { server, origin: `http://localhost:${port}` };
}

describe.skipIf(!hasChromium)('a browser logs in to svc --idp with @inrupt/solid-client-authn-browser', () => {
  let svc: RunningSvc;
  let app: { server: Server; origin: string };
  let browser: Browser;
  const resource = () => `${svc.base}/alice/private/browser.txt`;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
    const { access_token } = await (await fetch(`${svc.base}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) })).json();
    const put = await fetch(resource(), { method: 'PUT', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'text/plain' }, body: 'only for alice' });
    if (put.status !== 201) throw new Error(`PUT ${put.status}`);

    app = await serveApp(await bundleBrowserApp(`${svc.base}/`, resource()));
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    app?.server.close();
    await svc?.stop();
  });

  it('logs in through the login and consent pages and reads a private resource', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(app.origin + '/');
    await page.locator('#status', { hasText: 'logged out' }).waitFor();
    await page.click('#login');

    await page.waitForURL(`${svc.base}/idp/auth?**`);
    await expect(page.locator('body').textContent()).resolves.toContain('Browser test app');
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    await expect(page.locator('[role=alert]').textContent()).resolves.toContain('The email or the password is wrong.');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');

    await page.locator('button[value=allow]').waitFor();
    const consent = await page.locator('body').textContent();
    expect(consent).toContain('Browser test app');
    expect(consent).toContain(`${app.origin}/`);
    await page.click('button[value=allow]');

    await page.waitForURL(`${app.origin}/**`);
    await page.locator('#status', { hasText: /logged in|error/ }).waitFor({ timeout: 20_000 });
    expect(await page.locator('#status').textContent(), problems.join('\n')).toBe('logged in');
    expect(await page.locator('#webid').textContent()).toBe(`${svc.base}/alice/#me`);
    expect(await page.locator('#result').textContent()).toBe('200 only for alice');
  }, 60_000);
});
