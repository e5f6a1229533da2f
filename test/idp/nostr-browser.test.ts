/**
 * A real browser (Debian's chromium through playwright-core) with a small NIP-07 `window.nostr` that signs
 * with a test key through nostr-tools links the key on the account page of svc --idp, logs out, and logs in
 * with the key alone, also in the middle of an authorization request. Skipped without chromium, except in
 * CI (see browser.test.ts).
 */
import { finalizeEvent, generateSecretKey, getPublicKey, type EventTemplate } from 'nostr-tools/pure';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchChromium } from '../support/chromium.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { PASSWORD } from './support.ts';

const secret = generateSecretKey();
const pubkey = getPublicKey(secret);

/** A page whose `window.nostr` (NIP-07) signs with the test key in the test process. */
async function pageWithExtension(browser: Browser): Promise<Page> {
  const page = await browser.newPage();
  await page.exposeFunction('signWithTestKey', (template: EventTemplate) => finalizeEvent(template, secret));
  await page.addInitScript((key) => {
    const signer = window as unknown as { signWithTestKey(template: unknown): Promise<unknown>; nostr: unknown };
    signer.nostr = { getPublicKey: async () => key, signEvent: (template: unknown) => signer.signWithTestKey(template) };
  }, pubkey);
  return page;
}

describe.skipIf(!hasChromium)('Nostr sign-in in a browser (NIP-07 + NIP-98)', () => {
  let svc: RunningSvc;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  it('links the key on the account page, then logs in with it alone', async () => {
    const page = await pageWithExtension(browser);
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => message.type() === 'error' && problems.push(message.text()));

    await page.goto(`${svc.base}/idp/auth`);
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`${svc.base}/idp/account`);
    expect(await page.locator('body').textContent()).not.toContain(`did:nostr:${pubkey}`);
    await page.click('[data-nostr-post="/idp/account/nostr"]');
    await page.locator('tr', { hasText: `did:nostr:${pubkey}` }).waitFor();

    await page.click('text=Log out');
    await page.waitForURL(`${svc.base}/idp/auth`);
    await page.click('[data-nostr-post="/idp/nostr/login"]');
    await page.waitForURL(`${svc.base}/idp/account`);
    expect(await page.locator('body').textContent()).toContain('Logged in as alice@example.org');
    expect(problems).toEqual([]);
  }, 60_000);

  it('logs in with the key during an authorization request and reaches the consent page', async () => {
    const page = await pageWithExtension(browser);
    const query = new URLSearchParams({
      client_id: 'http://www.w3.org/ns/solid/terms#PublicOidcClient',
      redirect_uri: 'http://localhost:9/callback',
      response_type: 'code',
      scope: 'openid webid',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    await page.goto(`${svc.base}/idp/auth?${query}`);
    await page.click('[data-nostr-post="/idp/nostr/login"]');
    await page.locator('button[value=allow]').waitFor();
    expect(await page.locator('body').textContent()).toContain(`${svc.base}/alice/#me`);
  }, 60_000);

  it('shows why a key that no account linked cannot log in', async () => {
    const page = await browser.newPage();
    const stranger = generateSecretKey();
    await page.exposeFunction('signWithTestKey', (template: EventTemplate) => finalizeEvent(template, stranger));
    await page.addInitScript(() => {
      const signer = window as unknown as { signWithTestKey(template: unknown): Promise<unknown>; nostr: unknown };
      signer.nostr = { getPublicKey: async () => '', signEvent: (template: unknown) => signer.signWithTestKey(template) };
    });
    await page.goto(`${svc.base}/idp/auth`);
    await page.click('[data-nostr-post="/idp/nostr/login"]');
    await page.locator('#nostr-status', { hasText: 'not linked to any account' }).waitFor();
    expect(page.url()).toBe(`${svc.base}/idp/auth`);
  }, 60_000);

  it('unlinks the key on the account page; it then logs in no more', async () => {
    const page = await pageWithExtension(browser);
    await page.goto(`${svc.base}/idp/auth`);
    await page.click('[data-nostr-post="/idp/nostr/login"]');
    await page.waitForURL(`${svc.base}/idp/account`);
    await page.click(`button[aria-label^="Unlink the Nostr key ${pubkey.slice(0, 8)}"]`);
    await page.locator('text=The Nostr key has been unlinked').waitFor();
    expect(await page.locator('body').textContent()).not.toContain(`did:nostr:${pubkey}`);

    await page.click('text=Log out');
    await page.waitForURL(`${svc.base}/idp/auth`);
    await page.click('[data-nostr-post="/idp/nostr/login"]');
    await page.locator('#nostr-status', { hasText: 'not linked to any account' }).waitFor();
  }, 60_000);
});
