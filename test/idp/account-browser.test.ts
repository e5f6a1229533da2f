/**
 * Chromium (Debian's, through playwright-core) on the account page of `svc start --idp`: it lists the app
 * alice allowed and the browsers she is logged in with; revoking the app ends its token, logging out the
 * other browser ends that session, and "Sign out everywhere" ends this one too. The page runs under its
 * strict Content-Security-Policy without a violation. Without chromium the test is skipped, except in CI
 * (CI=true), where it fails: scripts/setup-system.sh installs chromium there.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { basic, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import { logIn, PASSWORD, type Browser as LoggedIn } from './support.ts';

describe.skipIf(!hasChromium)('the account page in a browser: apps and sessions, each revocable', () => {
  let svc: RunningSvc;
  let browser: Browser;
  /** The real server, as the request helpers of the handler tests address an app. */
  const server = { request: (path: string, init?: RequestInit) => fetch(svc.base + path, { redirect: 'manual', ...init }) };
  let appToken: string;
  let phone: LoggedIn;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
    const client = await registerApp(server, { client_name: 'Toot App' });
    const code = await outOfBandCode(server, client);
    const answer = await tokenRequest(server, { grant_type: 'authorization_code', code, redirect_uri: OOB }, { authorization: basic(client.client_id, client.client_secret) });
    appToken = (await answer.json()).access_token;
    phone = await logIn(server, PASSWORD, 'Phone Browser');
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('revokes the app, logs the other browser out, then signs out everywhere', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(`${svc.base}/idp/auth`);
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', PASSWORD);
    await page.click('#login-form button[type=submit]');
    await page.waitForURL(`${svc.base}/idp/account`);

    const apps = page.getByRole('table', { name: 'Apps you allowed' });
    await expect(apps.getByRole('row').nth(1).textContent()).resolves.toContain('Toot App');
    const sessions = page.getByRole('table', { name: 'Where you are logged in' });
    // A header row, this browser, the phone, and the login through which the app was allowed.
    expect(await sessions.getByRole('row').count()).toBe(4);
    await expect(sessions.getByRole('row', { name: /This browser/ }).count()).resolves.toBe(1);
    await expect(sessions.getByRole('row', { name: /Phone Browser/ }).count()).resolves.toBe(1);
    expect((await server.request('/alice/private/', bearer(appToken))).status).toBe(200);

    await page.getByRole('button', { name: 'Revoke Toot App' }).click();
    await page.getByRole('status').filter({ hasText: 'The app has been logged out' }).waitFor();
    await expect(page.getByRole('table', { name: 'Apps you allowed' }).count()).resolves.toBe(0);
    expect((await server.request('/alice/private/', bearer(appToken))).status).toBe(401);

    const phoneRow = page.getByRole('table', { name: 'Where you are logged in' }).getByRole('row', { name: /Phone Browser/ });
    await phoneRow.getByRole('button', { name: /^Log out the session begun/ }).click();
    await page.getByRole('status').filter({ hasText: 'The session has ended' }).waitFor();
    expect(await page.getByRole('table', { name: 'Where you are logged in' }).getByRole('row').count()).toBe(3);
    expect((await server.request('/idp/account', { headers: { cookie: phone.cookies } })).status).toBe(303);

    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await page.getByRole('status').filter({ hasText: 'signed out everywhere' }).waitFor();
    await page.goto(`${svc.base}/idp/account`);
    await page.waitForURL(`${svc.base}/idp/auth`);
    expect(problems).toEqual([]);
  }, 60_000);
});
