/**
 * Passkeys in a real browser: Debian's chromium (playwright-core) with a virtual authenticator (Chrome DevTools
 * Protocol WebAuthn domain) registers a passkey through the account page, logs out, logs in with the passkey
 * alone and with the email typed, and completes an authorization-code flow with it. Skipped without chromium,
 * except in CI (CI=true), where it fails: scripts/setup-system.sh installs chromium there.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { dpopKey, PASSWORD, pkce } from './support.ts';

const APP_REDIRECT = 'http://localhost:9/callback';

describe.skipIf(!hasChromium)('passkeys in chromium with a virtual authenticator', () => {
  let svc: RunningSvc;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  /** http://localhost:<port>: a secure context whose host name can be a relying-party ID (an IP address cannot). */
  let origin: string;
  const problems: string[] = [];

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    origin = svc.base.replace('127.0.0.1', 'localhost');
    const created = await fetch(`${origin}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
    browser = await launchChromium();
    context = await browser.newContext();
    page = await context.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  const logOut = async () => {
    await page.click('form[action="/idp/logout"] button');
    await page.locator('#passkey-login').waitFor();
  };

  it('offers a passkey after a password login, registers one, lists it, and logs in with it', async () => {
    await page.goto(`${origin}/idp/auth`);
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', PASSWORD);
    await page.click('#login-form button[type=submit]');
    await page.waitForURL(`${origin}/idp/account`);
    await expect(page.locator('body').textContent()).resolves.toContain('None yet: add one to log in without your password.');

    await page.fill('#passkey-name', 'Test laptop');
    await page.click('#passkey-add');
    await page.locator('td', { hasText: 'Test laptop' }).waitFor();
    expect(problems).toEqual([]);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe('localhost');

    // A passkey alone: no email typed, the authenticator offers its discoverable credential.
    await logOut();
    await page.click('#passkey-login');
    await page.waitForURL(`${origin}/idp/account`);
    await expect(page.locator('body').textContent()).resolves.toContain('Logged in as alice@example.org');
    await expect(page.locator('body').textContent()).resolves.toContain('last used');

    // After typing the email: the options list that account's passkeys.
    await logOut();
    await page.fill('#email', 'alice@example.org');
    await page.click('#passkey-login');
    await page.waitForURL(`${origin}/idp/account`);
    const after = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(after.credentials[0]!.signCount).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('completes an authorization-code flow with a passkey login, and the token reads a private resource', async () => {
    const { access_token } = await (await fetch(`${origin}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) })).json();
    expect((await fetch(`${origin}/alice/private/passkey.txt`, { method: 'PUT', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'text/plain' }, body: 'only for alice' })).status).toBe(201);
    const registered = await fetch(`${origin}/idp/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: [APP_REDIRECT], client_name: 'Passkey App' }) });
    const client = (await registered.json()) as { client_id: string; client_secret: string };
    const { verifier, challenge } = await pkce();
    // The app's redirect target: answered by the browser itself, no server needed.
    await page.route(`${APP_REDIRECT}**`, (route) => route.fulfill({ contentType: 'text/plain', body: 'back at the app' }));

    await logOut();
    const query = new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: APP_REDIRECT, scope: 'openid webid', state: 'passkey-state', code_challenge: challenge, code_challenge_method: 'S256' });
    await page.goto(`${origin}/idp/auth?${query}`);
    await expect(page.locator('body').textContent()).resolves.toContain('Passkey App');
    await page.click('#passkey-login');
    await page.locator('button[value=allow]').waitFor();
    await page.click('button[value=allow]');
    await page.waitForURL(`${APP_REDIRECT}**`);
    const back = new URL(page.url());
    expect(back.searchParams.get('state')).toBe('passkey-state');

    const key = await dpopKey();
    const tokenUrl = `${origin}/idp/token`;
    const tokens = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`, dpop: await key.proof('POST', tokenUrl) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: APP_REDIRECT, code_verifier: verifier }),
    });
    expect(tokens.status).toBe(200);
    const { access_token: dpopToken } = (await tokens.json()) as { access_token: string };
    const resource = `${origin}/alice/private/passkey.txt`;
    const read = await fetch(resource, { headers: { authorization: `DPoP ${dpopToken}`, dpop: await key.proof('GET', resource) } });
    expect(read.status).toBe(200);
    expect(await read.text()).toBe('only for alice');
    expect(problems).toEqual([]);
  }, 60_000);
});
