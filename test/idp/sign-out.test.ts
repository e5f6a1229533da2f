/**
 * A password change and the account page's "Sign out everywhere" end everything the account had handed out:
 * other browser sessions, the Solid app's DPoP access token and its refresh token, the script's Bearer token
 * from /idp/credentials, and an OAuth app's access and refresh tokens.
 */
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { basic, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import { cookiesFrom, form, idpApp, json, logIn, PASSWORD, solidAppLogin, type Browser } from './support.ts';

const PRIVATE = '/alice/private/';

/** Every kind of session and token alice can hold, each checked to work. */
async function everything(app: TestApp) {
  const otherBrowser = await logIn(app, PASSWORD, 'Other Browser');
  const solid = await solidAppLogin(app);
  const script = (await (await app.request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }))).json()) as { access_token: string };
  const oauthApp = await registerApp(app);
  const oauthAuth = { authorization: basic(oauthApp.client_id, oauthApp.client_secret) };
  const oauthAnswer = await tokenRequest(app, { grant_type: 'authorization_code', code: await outOfBandCode(app, oauthApp), redirect_uri: OOB }, oauthAuth);
  const oauth = (await oauthAnswer.json()) as { access_token: string; refresh_token: string };

  expect((await app.request('/idp/account', { headers: { cookie: otherBrowser.cookies } })).status).toBe(200);
  expect((await solid.get(PRIVATE)).status).toBe(200);
  expect((await app.request(PRIVATE, bearer(script.access_token))).status).toBe(200);
  expect((await app.request(PRIVATE, bearer(oauth.access_token))).status).toBe(200);
  return { otherBrowser, solid, script, oauth, oauthAuth };
}

async function expectAllEnded(app: TestApp, held: Awaited<ReturnType<typeof everything>>): Promise<void> {
  const account = await app.request('/idp/account', { headers: { cookie: held.otherBrowser.cookies } });
  expect(account.status).toBe(303);
  expect(account.headers.get('location')).toBe('/idp/auth');

  const solidRead = await held.solid.get(PRIVATE);
  expect(solidRead.status).toBe(401);
  expect(solidRead.headers.get('www-authenticate')).toContain('signed out everywhere or changed its password');
  const solidRefresh = await held.solid.token({ grant_type: 'refresh_token', refresh_token: held.solid.tokens.refresh_token });
  expect(solidRefresh.status).toBe(400);
  expect((await solidRefresh.json()).error).toBe('invalid_grant');

  expect((await app.request(PRIVATE, bearer(held.script.access_token))).status).toBe(401);

  expect((await app.request(PRIVATE, bearer(held.oauth.access_token))).status).toBe(401);
  expect((await app.request('/api/v1/accounts/verify_credentials', bearer(held.oauth.access_token))).status).toBe(401);
  const oauthRefresh = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: held.oauth.refresh_token }, held.oauthAuth);
  expect(oauthRefresh.status).toBe(400);
  expect((await oauthRefresh.json()).error).toBe('invalid_grant');
}

const accountPage = (app: TestApp, browser: Browser) => app.request('/idp/account', { headers: { cookie: browser.cookies } });

describe('ending every session and token of an account', () => {
  it('a password change ends them all; the browser that changed it stays logged in', async () => {
    const app = await idpApp();
    const held = await everything(app);
    const browser = await logIn(app);
    const changed = await app.request('/idp/account/password', form({ csrf: browser.csrf, current: PASSWORD, password: 'a new password' }, { cookie: browser.cookies }));
    expect(changed.status).toBe(200);
    const stillHere = { ...browser, cookies: cookiesFrom(changed, browser.cookies) };
    expect((await accountPage(app, stillHere)).status).toBe(200);

    await expectAllEnded(app, held);
    // New tokens work again, with the new password.
    const script = await (await app.request('/idp/credentials', json({ email: 'alice@example.org', password: 'a new password' }))).json();
    expect((await app.request(PRIVATE, bearer(script.access_token))).status).toBe(200);
  });

  it('"Sign out everywhere" ends them all, this browser\'s session too; a new login works', async () => {
    const app = await idpApp();
    const held = await everything(app);
    const browser = await logIn(app);
    const page = await (await accountPage(app, browser)).text();
    expect(page).toContain('action="/idp/account/sign-out-everywhere"');
    const signedOut = await app.request('/idp/account/sign-out-everywhere', form({ csrf: browser.csrf }, { cookie: browser.cookies }));
    expect(signedOut.status).toBe(200);
    expect(await signedOut.text()).toContain('signed out everywhere');
    expect((await accountPage(app, browser)).status).toBe(303);

    await expectAllEnded(app, held);
    const again = await solidAppLogin(app);
    expect((await again.get(PRIVATE)).status).toBe(200);
    expect((await accountPage(app, await logIn(app))).status).toBe(200);
  });
});
