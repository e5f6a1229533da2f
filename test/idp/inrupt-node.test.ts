/**
 * The Inrupt Node client against a real `svc start --idp`: client-credentials login, an authorization-code
 * login through the HTML pages (dynamic registration), a refresh, and reads and writes of private
 * resources with DPoP through @inrupt/solid-client.
 */
import { getFile, overwriteFile } from '@inrupt/solid-client';
import { Session } from '@inrupt/solid-client-authn-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { cookiesFrom, hiddenField, PASSWORD } from './support.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

describe('@inrupt/solid-client-authn-node against svc --idp', () => {
  let svc: RunningSvc;
  let issuer: string;

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    issuer = `${svc.base}/`;
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}\n${svc.output()}`);
  });

  afterAll(async () => {
    await svc?.stop();
  });

  it('logs in with client credentials and reads and writes a private resource with DPoP', async () => {
    const made = await fetch(`${svc.base}/idp/client-credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD, name: 'inrupt test' }),
    });
    expect(made.status).toBe(201);
    const { client_id, client_secret } = await made.json();

    const session = new Session();
    await session.login({ oidcIssuer: issuer, clientId: client_id, clientSecret: client_secret, tokenType: 'DPoP' });
    expect(session.info.isLoggedIn).toBe(true);
    expect(session.info.webId).toBe(`${svc.base}/alice/#me`);

    const url = `${svc.base}/alice/private/from-inrupt.txt`;
    await overwriteFile(url, new Blob(['written with DPoP'], { type: 'text/plain' }), { contentType: 'text/plain', fetch: session.fetch });
    const file = await getFile(url, { fetch: session.fetch });
    expect(await file.text()).toBe('written with DPoP');
    // Without the session the resource stays private.
    expect((await fetch(url)).status).toBe(401);
    await session.logout({ logoutType: 'app' });
  });

  it('logs in through the login and consent pages, then refreshes with the refresh token', async () => {
    // A client registered at the registration endpoint (RFC 7591), as a deployed app would be.
    const registered = await fetch(`${svc.base}/idp/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'Inrupt Node test' }),
    });
    expect(registered.status).toBe(201);
    const { client_id: clientId, client_secret: clientSecret } = await registered.json();
    const session = new Session();
    let authorizationUrl = '';
    await session.login({ oidcIssuer: issuer, clientId, clientSecret, redirectUrl: REDIRECT, tokenType: 'DPoP', handleRedirect: (url) => void (authorizationUrl = url) });
    expect(authorizationUrl.startsWith(`${svc.base}/idp/auth?`)).toBe(true);

    // The pages, as a browser without JavaScript would use them.
    const login = await fetch(authorizationUrl);
    expect(login.status).toBe(200);
    let cookies = cookiesFrom(login);
    const loginHtml = await login.text();
    expect(loginHtml).toContain('Inrupt Node test');
    const fields = Object.fromEntries([...loginHtml.matchAll(/type="hidden" name="([^"]+)"/g)].map(([, name]) => [name!, hiddenField(loginHtml, name!)]));
    const consent = await fetch(`${svc.base}/idp/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
      body: new URLSearchParams({ ...fields, email: 'alice@example.org', password: PASSWORD }),
    });
    expect(consent.status).toBe(200);
    cookies = cookiesFrom(consent, cookies);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain(REDIRECT);
    const allowed = await fetch(`${svc.base}/idp/consent`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies },
      body: new URLSearchParams({ ...fields, decision: 'allow' }),
    });
    expect(allowed.status).toBe(303);

    let refreshToken = '';
    session.events.on('newRefreshToken', (token: string) => void (refreshToken = token));
    const info = await session.handleIncomingRedirect(allowed.headers.get('location')!);
    expect(info?.isLoggedIn).toBe(true);
    expect(info?.webId).toBe(`${svc.base}/alice/#me`);
    expect(refreshToken).not.toBe('');
    const url = `${svc.base}/alice/private/code-flow.txt`;
    await overwriteFile(url, new Blob(['code flow'], { type: 'text/plain' }), { contentType: 'text/plain', fetch: session.fetch });

    // A new session from the refresh token: the refresh_token grant, with the client's secret.
    const refreshed = new Session();
    await refreshed.login({ oidcIssuer: issuer, clientId, clientSecret, refreshToken, tokenType: 'DPoP' });
    expect(refreshed.info.isLoggedIn).toBe(true);
    expect(await (await getFile(url, { fetch: refreshed.fetch })).text()).toBe('code flow');
  });
});
