/**
 * A walk through every page of the server's own design in chromium, as a person meets them: login (with a
 * NIP-07 extension, so the Nostr button shows), its error, registration, its error and its success, the
 * Solid-OIDC consent, the OAuth consent and out-of-band code, the account page with a passkey, an app, a
 * session and a credential, the passkey error on an IP address, a refused request, the "log in" page of a
 * private URL, the data browser's login callback, and "signed out everywhere". test/idp/pages-browser.test.ts
 * checks each stop; scripts/screenshots.ts photographs each one for docs/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startSvc, type RunningSvc } from './server.ts';

export const TOUR_PASSWORD = 'correct horse battery';

export interface Stop {
  name: string;
  /** Brings `page` to the stop (it may go on from the previous stop's page). */
  visit(page: Page): Promise<void>;
}

export interface Tour {
  stops: Stop[];
  /** A browser context as the tour needs it: a NIP-07 extension stub and a virtual passkey authenticator. */
  context(browser: Browser, viewport: { width: number; height: number }): Promise<{ context: BrowserContext; page: Page }>;
  stop(): Promise<void>;
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A stand-in for a NIP-07 extension: it exists (the Nostr button shows) and signs nothing. */
const NOSTR_EXTENSION = `window.nostr = { getPublicKey: async () => '0'.repeat(64), signEvent: async () => { throw new Error('User rejected'); } };`;

/** Starts the servers of the tour: `--idp` (every page) and `--idp --databrowser` (the login callback). */
export async function pageTour(): Promise<Tour> {
  const [idp, databrowser]: RunningSvc[] = await Promise.all([startSvc(['--idp', '--quiet']), startSvc(['--idp', '--databrowser', '--quiet'])]);
  // localhost, not 127.0.0.1: a passkey needs a host name.
  const origin = idp.base.replace('127.0.0.1', 'localhost');
  const created = await post(`${origin}/.pods`, { name: 'alice', email: 'alice@example.org', password: TOUR_PASSWORD });
  if (created.status !== 201) throw new Error(`alice: ${created.status} ${await created.text()}`);
  const solidApp = await (await post(`${origin}/idp/reg`, { client_name: 'Notes', redirect_uris: ['https://notes.example/callback'], token_endpoint_auth_method: 'none' })).json();
  const mastodonApp = await (await post(`${origin}/api/v1/apps`, { client_name: 'Toot', redirect_uris: 'https://toot.example/callback', scopes: 'read write', website: 'https://toot.example' })).json();
  const pasteApp = await (await post(`${origin}/api/v1/apps`, { client_name: 'Paste-in app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' })).json();

  // Each walk registers a pod of its own.
  let walks = 0;
  const logIn = async (page: Page) => {
    await page.fill('#email', 'alice@example.org');
    await page.fill('#password', TOUR_PASSWORD);
    await page.click('#login-form button[type=submit]');
  };
  const solidAuthorization = new URLSearchParams({ response_type: 'code', client_id: solidApp.client_id, redirect_uri: 'https://notes.example/callback', scope: 'openid webid offline_access', state: 's', code_challenge: 'A'.repeat(43), code_challenge_method: 'S256' });
  const oauth = (app: { client_id: string }, redirect: string) => `${origin}/oauth/authorize?${new URLSearchParams({ client_id: app.client_id, redirect_uri: redirect, response_type: 'code', scope: app === pasteApp ? 'read' : 'read write' })}`;

  const stops: Stop[] = [
    { name: 'login', visit: async (page) => void (await page.goto(`${origin}/idp/auth`)) },
    {
      name: 'login-error',
      async visit(page) {
        await page.fill('#email', 'alice@example.org');
        await page.fill('#password', 'not the password');
        await page.click('#login-form button[type=submit]');
        await page.locator('#password-error').waitFor();
      },
    },
    { name: 'register', visit: async (page) => void (await page.goto(`${origin}/idp/register`)) },
    {
      name: 'register-error',
      async visit(page) {
        await page.fill('#email', `someone${walks + 1}@example.org`);
        await page.fill('#password', TOUR_PASSWORD);
        await page.fill('#name', 'alice');
        await page.click('form button[type=submit]');
        await page.locator('#name-error').waitFor();
      },
    },
    {
      name: 'registered',
      async visit(page) {
        await page.fill('#password', TOUR_PASSWORD);
        await page.fill('#name', `carol${++walks}`);
        await page.click('form button[type=submit]');
        await page.locator('.notice').waitFor();
      },
    },
    {
      name: 'consent',
      async visit(page) {
        await page.goto(`${origin}/idp/auth?${solidAuthorization}`);
        await logIn(page);
        await page.locator('button[value=allow]').waitFor();
      },
    },
    { name: 'oauth-consent', visit: async (page) => void (await page.goto(oauth(mastodonApp, 'https://toot.example/callback'))) },
    {
      name: 'oauth-code',
      async visit(page) {
        await page.goto(oauth(pasteApp, 'urn:ietf:wg:oauth:2.0:oob'));
        await page.click('button[value=allow]');
        // The app pastes the code in: it then holds tokens, listed on the account page.
        const code = await page.locator('#code').textContent();
        const body = new URLSearchParams({ grant_type: 'authorization_code', code: code!, redirect_uri: 'urn:ietf:wg:oauth:2.0:oob', client_id: pasteApp.client_id, client_secret: pasteApp.client_secret });
        const exchanged = await fetch(`${origin}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
        if (exchanged.status !== 200) throw new Error(`oauth token: ${exchanged.status} ${await exchanged.text()}`);
      },
    },
    {
      name: 'account',
      async visit(page) {
        await page.goto(`${origin}/idp/account`);
        await page.fill('#passkey-name', 'This laptop');
        // The page reloads once the passkey is made and kept.
        const reloaded = page.waitForEvent('load');
        await page.click('#passkey-add');
        await reloaded;
        await page.fill('#cred-name', 'backup job');
        await page.click('form[action="/idp/account/credentials"] button[type=submit]');
        await page.locator('.notice').waitFor();
      },
    },
    {
      name: 'passkey-error',
      async visit(page) {
        await page.goto(`${idp.base}/idp/auth`);
        await page.click('#passkey-login');
        await page.locator('#passkey-status.error').waitFor();
      },
    },
    { name: 'refusal', visit: async (page) => void (await page.goto(`${origin}/idp/auth?client_id=unknown-app&response_type=code`)) },
    { name: 'login-needed', visit: async (page) => void (await page.goto(`${origin}/alice/private/`)) },
    {
      name: 'callback',
      async visit(page) {
        await page.goto(`${databrowser.base}/.databrowser/callback`);
        await page.locator('#svc-callback-status.error').waitFor();
      },
    },
    {
      name: 'signed-out',
      async visit(page) {
        await page.goto(`${origin}/idp/account`);
        await page.click(`form[action="/idp/account/sign-out-everywhere"] button`);
        await page.locator('.notice').waitFor();
      },
    },
  ];

  return {
    stops,
    async context(browser, viewport) {
      const context = await browser.newContext({ viewport, deviceScaleFactor: 1 });
      await context.addInitScript(NOSTR_EXTENSION);
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      return { context, page };
    },
    async stop() {
      await Promise.all([idp.stop(), databrowser.stop()]);
    },
  };
}
