/**
 * The account page lists the apps the account allowed (Solid apps of the identity provider, OAuth apps) and
 * the browsers logged in to it, and revokes any of them.
 */
import { describe, expect, it } from 'vitest';
import { basic, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';
import type { TestApp } from '../support/app.ts';
import { form, hiddenField, idpApp, logIn, solidAppLogin, type Browser } from './support.ts';

const PRIVATE = '/alice/private/';

const accountPage = (app: TestApp, browser: Browser) => app.request('/idp/account', { headers: { cookie: browser.cookies } });

/** The hidden `field` of the form whose button is labelled `label`. */
function formValue(html: string, label: string, field: string): string {
  const form = html.split('<form').find((part) => part.includes(`aria-label="${label}"`));
  if (!form) throw new Error(`no form with a button labelled ${label} in:\n${html}`);
  return hiddenField(form, field);
}

describe('the account page: apps and sessions', () => {
  it('lists the Solid and OAuth apps allowed, and revokes each: their tokens end at once', async () => {
    const app = await idpApp();
    const solid = await solidAppLogin(app);
    const oauthApp = await registerApp(app, { client_name: 'Toot App' });
    const oauthAuth = { authorization: basic(oauthApp.client_id, oauthApp.client_secret) };
    const oauth = await (await tokenRequest(app, { grant_type: 'authorization_code', code: await outOfBandCode(app, oauthApp), redirect_uri: OOB }, oauthAuth)).json();
    const browser = await logIn(app);

    const page = await (await accountPage(app, browser)).text();
    expect(page).toContain('<h2 id="apps-heading">Apps you allowed</h2>');
    expect(page).toContain(`<code>${solid.client.client_id}</code>`);
    expect(page).toContain('openid webid offline_access');
    expect(page).toContain(`<code>${oauthApp.client_id}</code>`);
    expect(page).toContain('read write');

    const solidRevoked = await app.request('/idp/account/apps/revoke', form({ csrf: browser.csrf, app: formValue(page, 'Revoke Test App', 'app') }, { cookie: browser.cookies }));
    expect(solidRevoked.status).toBe(200);
    const afterSolid = await solidRevoked.text();
    expect(afterSolid).toContain('The app has been logged out');
    expect(afterSolid).not.toContain(`<code>${solid.client.client_id}</code>`);
    expect((await solid.get(PRIVATE)).status).toBe(401);
    expect((await solid.token({ grant_type: 'refresh_token', refresh_token: solid.tokens.refresh_token })).status).toBe(400);
    expect((await app.request(PRIVATE, bearer(oauth.access_token))).status).toBe(200);

    const oauthRevoked = await app.request('/idp/account/apps/revoke', form({ csrf: browser.csrf, app: formValue(afterSolid, 'Revoke Toot App', 'app') }, { cookie: browser.cookies }));
    expect(oauthRevoked.status).toBe(200);
    expect(await oauthRevoked.text()).toContain('<p>None.</p>');
    expect((await app.request(PRIVATE, bearer(oauth.access_token))).status).toBe(401);
    expect((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: oauth.refresh_token }, oauthAuth)).status).toBe(400);

    const unknown = await app.request('/idp/account/apps/revoke', form({ csrf: browser.csrf, app: 'solid:nothing-of-alice' }, { cookie: browser.cookies }));
    expect(unknown.status).toBe(404);
  });

  it('lists the sessions, this browser marked, and ends another one', async () => {
    const app = await idpApp();
    const laptop = await logIn(app, undefined, 'Laptop Browser');
    const phone = await logIn(app, undefined, 'Phone Browser');

    const page = await (await accountPage(app, laptop)).text();
    expect(page).toContain('<h2 id="sessions-heading">Where you are logged in</h2>');
    expect(page).toMatch(/<td>Laptop Browser<\/td><td><time [^>]+>[^<]+<\/time><\/td>\n<td>This browser<\/td>/);
    expect(page).toContain('<td>Phone Browser</td>');

    const phoneSession = formValue(page, page.match(/aria-label="(Log out the session begun [^"]+)"/)![1]!, 'session');
    const ended = await app.request('/idp/account/sessions/end', form({ csrf: laptop.csrf, session: phoneSession }, { cookie: laptop.cookies }));
    expect(ended.status).toBe(200);
    expect(await ended.text()).not.toContain('Phone Browser');
    expect((await accountPage(app, phone)).status).toBe(303);
    expect((await accountPage(app, laptop)).status).toBe(200);

    // The phone's cookie cannot end the laptop's session any more, nor can a made-up session id.
    expect((await app.request('/idp/account/sessions/end', form({ csrf: phone.csrf, session: phoneSession }, { cookie: phone.cookies }))).status).toBe(303);
    expect((await app.request('/idp/account/sessions/end', form({ csrf: laptop.csrf, session: 'no-such-session' }, { cookie: laptop.cookies }))).status).toBe(404);
  });

  it('logging out ends the session on the server: a copy of the cookie is of no use afterwards', async () => {
    const app = await idpApp();
    const browser = await logIn(app);
    const copy = { ...browser };
    expect((await app.request('/idp/logout', form({ csrf: browser.csrf }, { cookie: browser.cookies }))).status).toBe(303);
    expect((await accountPage(app, copy)).status).toBe(303);
  });
});
