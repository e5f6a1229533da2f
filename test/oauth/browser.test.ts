/**
 * Chromium (Debian's, through playwright-core) logs in to a small remoteStorage-style page with the implicit
 * grant: the page sends the browser to /oauth/authorize with response_type=token and scope documents:rw, the
 * user logs in on the identity provider's page and allows the app, and the page reads the token from the
 * fragment. Without chromium the test is skipped, except in CI (CI=true), where it fails.
 */
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { PASSWORD } from '../idp/support.ts';

/** The app: its origin is its client_id, its own page the redirect URI, and the token comes back in the fragment. */
function appPage(server: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>Notes</title></head><body>
<a id="connect">Connect your storage</a><p id="token"></p><p id="scope"></p><p id="state"></p>
<script>
const answer = new URLSearchParams(location.hash.slice(1));
if (answer.has('access_token')) {
  document.getElementById('token').textContent = answer.get('access_token');
  document.getElementById('scope').textContent = answer.get('scope');
  document.getElementById('state').textContent = answer.get('state');
  history.replaceState(null, '', location.pathname);
}
const query = new URLSearchParams({ client_id: location.origin, redirect_uri: location.origin + '/', response_type: 'token', scope: 'documents:rw', state: 'notes-1' });
document.getElementById('connect').href = ${JSON.stringify(server)} + '/oauth/authorize?' + query;
</script></body></html>`;
}

describe.skipIf(!hasChromium)('a browser gets a token by the implicit grant (response_type=token)', () => {
  let svc: RunningSvc;
  let app: { server: Server; origin: string };
  let browser: Browser;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
    const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(appPage(svc.base)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    app = { server, origin: `http://localhost:${(server.address() as { port: number }).port}` };
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    app?.server.close();
    await svc?.stop();
  });

  it('logs in, allows documents:rw, and the page reads the token from the fragment', async () => {
    const page = await browser.newPage();
    await page.goto(app.origin + '/');
    await page.click('#connect');
    await page.waitForURL(`${svc.base}/idp/oauth/authorize?**`);
    expect(await page.locator('body').textContent()).toContain(`Log in to continue to ${app.origin}`);
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');

    await page.locator('button[value=allow]').waitFor();
    const consent = await page.locator('#scopes').textContent();
    expect(consent).toContain('documents:rw');
    expect(consent).toContain('read and change your remoteStorage folder "documents"');
    await page.click('button[value=allow]');

    await page.waitForURL(`${app.origin}/`);
    await page.locator('#token', { hasText: /./ }).waitFor();
    const token = (await page.locator('#token').textContent())!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await page.locator('#scope').textContent()).toBe('documents:rw');
    expect(await page.locator('#state').textContent()).toBe('notes-1');

    // The token is alice's, limited to the documents module: nothing on her Solid resources.
    const solid = await fetch(`${svc.base}/alice/private/`, { headers: { authorization: `Bearer ${token}` } });
    expect(solid.status).toBe(403);
    expect(solid.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  }, 60_000);
});
