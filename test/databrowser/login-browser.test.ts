/**
 * A person with a browser and a private URL (Debian's chromium, through playwright-core, against real `svc
 * start` processes): typed into the address bar, it answers 401 with the data browser (mashlib, served by
 * svc), whose login goes through the identity provider as the server's own data browser and comes back to
 * the resource, now shown, with nothing of the login left in the address bar. The same through mashlib's
 * own Log In, and through the UI shell, which names itself on the consent page. The favicon answers 200.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { PASSWORD } from '../idp/support.ts';

const SECRET = 'a private note';

/** alice's pod with a private Turtle document; answers the server's origin as a browser names it (localhost). */
async function withPrivateNote(svc: RunningSvc): Promise<string> {
  const origin = svc.base.replace('127.0.0.1', 'localhost');
  const created = await fetch(`${origin}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
  if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  const { access_token } = await (await fetch(`${origin}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) })).json();
  const put = await fetch(`${origin}/alice/private/notes.ttl`, { method: 'PUT', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'text/turtle' }, body: `<#n1> <http://purl.org/dc/terms/title> "${SECRET}" .\n` });
  if (put.status !== 201) throw new Error(`PUT ${put.status}`);
  return origin;
}

/** On the identity provider's login page: logs alice in, checks who the consent page names and where the login goes, and allows. */
async function logInAndAllow(page: Page, origin: string): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/idp/auth');
  expect(await page.locator('main').textContent()).toContain(`Log in to continue to Data browser of ${new URL(origin).host}.`);
  await page.fill('#email', 'alice@example.org');
  await page.fill('#password', PASSWORD);
  await page.click('#login-form button[type=submit]');
  await page.locator('button[value=allow]').waitFor();
  const consent = await page.locator('main').textContent();
  expect(consent).toContain(`Data browser of ${new URL(origin).host}, which this server runs itself`);
  expect(consent).toContain(`${origin}/.databrowser/callback`);
  await page.click('button[value=allow]');
}

describe.skipIf(!hasChromium)('a private URL in the address bar, with the data browser', () => {
  let svc: RunningSvc;
  let shell: RunningSvc;
  let origin: string;
  let shellOrigin: string;
  let browser: Browser;

  beforeAll(async () => {
    [svc, shell] = await Promise.all([startSvc(['--idp', '--databrowser', '--conneg']), startSvc(['--idp', '--databrowser', '--conneg', '--ui-shell'])]);
    [origin, shellOrigin] = await Promise.all([withPrivateNote(svc), withPrivateNote(shell)]);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([svc?.stop(), shell?.stop()]);
  });

  it('answers 401 with the data browser; its Log in goes through the identity provider and back to the resource, shown', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const resource = `${origin}/alice/private/notes.ttl`;
    const answer = await page.goto(resource);
    expect(answer?.status()).toBe(401);
    const notice = page.locator('#svc-login-needed');
    await expect(notice.textContent()).resolves.toContain('This resource is not public');
    await page.click('#svc-login');
    await logInAndAllow(page, origin);
    await page.waitForURL(resource);
    await page.locator('#OutlineView').getByText(SECRET).first().waitFor({ timeout: 30_000 });
    // The code and state went no further than the callback page, and not into the history either.
    expect(page.url()).toBe(resource);
    await notice.waitFor({ state: 'hidden' });
    await context.close();
  }, 90_000);

  it("comes back the same way through mashlib's own Log In, with this server typed as the identity provider", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const resource = `${origin}/alice/private/notes.ttl`;
    await page.goto(resource);
    await page.getByRole('button', { name: 'Log In', exact: true }).click();
    await page.getByLabel('Solid Identity Provider').fill(origin);
    await page.getByRole('dialog').getByRole('button', { name: 'Log In', exact: true }).click();
    await logInAndAllow(page, origin);
    await page.waitForURL(resource);
    await page.locator('#OutlineView').getByText(SECRET).first().waitFor({ timeout: 30_000 });
    await context.close();
  }, 90_000);

  it('logs in from the UI shell, which names itself on the consent page and leaves a clean address bar', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const container = `${shellOrigin}/alice/public/`;
    await page.goto(container);
    const login = page.locator('#svc-shell-login');
    await login.waitFor({ state: 'visible', timeout: 30_000 });
    await login.click();
    await logInAndAllow(page, shellOrigin);
    await page.waitForURL(container);
    await page.locator('#svc-shell-user', { hasText: `${shellOrigin}/alice/#me` }).waitFor({ timeout: 30_000 });
    expect(page.url()).toBe(container);
    await expect(page.locator('#svc-shell-logout').isVisible()).resolves.toBe(true);
    await context.close();
  }, 90_000);

  it('answers the favicon with 200 and an icon the browser decodes', async () => {
    const page = await browser.newPage();
    const answer = await page.goto(`${origin}/favicon.ico`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-type']).toBe('image/x-icon');
    await page.goto(`${origin}/alice/`);
    const width = await page.evaluate(async () => {
      const image = new Image();
      image.src = '/favicon.ico';
      await image.decode();
      return image.naturalWidth;
    });
    expect(width).toBeGreaterThanOrEqual(16);
    await page.close();
  }, 60_000);
});
