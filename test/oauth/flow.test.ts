import { describe, expect, it } from 'vitest';
import { idpApp } from '../idp/support.ts';
import { pkce } from '../idp/support.ts';
import { authorize, basic, bearer, OOB, outOfBandCode, REDIRECT, registerApp, tokenRequest } from './support.ts';

describe('OAuth 2.0 for third-party apps: authorization code', () => {
  it('registers an app, logs in through the IdP pages, shows an out-of-band code and exchanges it (client_secret in the body)', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const code = await outOfBandCode(app, client);
    const response = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read write', expires_in: 86400, created_at: expect.any(Number), refresh_token: expect.any(String), access_token: expect.any(String) });
    const me = await app.request('/api/v1/accounts/verify_credentials', bearer(body.access_token));
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: 'alice', username: 'alice', acct: 'alice', source: { privacy: 'public' } });
  });

  it('redirects with code and state, and checks PKCE (Basic client authentication)', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const { verifier, challenge } = await pkce();
    const answer = await authorize(app, { client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'read', state: 'st4te', code_challenge: challenge, code_challenge_method: 'S256' });
    expect(answer.status).toBe(303);
    const back = new URL(answer.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st4te');
    const code = back.searchParams.get('code')!;
    const auth = { authorization: basic(client.client_id, client.client_secret) };

    const wrongVerifier = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: 'x'.repeat(43) }, auth);
    expect(wrongVerifier.status).toBe(400);
    // RFC 6749 §5.2: application/json, with the problem members too; problem+json for a client that asks for it.
    expect(wrongVerifier.headers.get('content-type')).toBe('application/json');
    expect(await wrongVerifier.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('code_verifier') });
    // The failed attempt used nothing up: the right verifier gets the token, once.
    const right = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect(right.status).toBe(200);
    const again = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }, auth);
    expect(again.status).toBe(400);
    expect((await again.json()).error).toBe('invalid_grant');
  });

  it('refuses a reused code, a wrong redirect_uri, a missing verifier, another app and a wrong secret', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const other = await registerApp(app, { client_name: 'Other' });
    const exchange = (code: string, extra: Record<string, string> = {}) =>
      tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret, ...extra });

    const code = await outOfBandCode(app, client);
    expect((await exchange(code)).status).toBe(200);
    const reused = await exchange(code);
    expect(reused.status).toBe(400);
    expect(await reused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('used already') });

    const wrongRedirect = await exchange(await outOfBandCode(app, client), { redirect_uri: REDIRECT });
    expect((await wrongRedirect.json()).error_description).toContain('redirect_uri');

    const { challenge } = await pkce();
    const noVerifier = await exchange(await outOfBandCode(app, client, { code_challenge: challenge, code_challenge_method: 'S256' }));
    expect(noVerifier.status).toBe(400);
    expect((await noVerifier.json()).error).toBe('invalid_grant');

    const foreign = await tokenRequest(app, { grant_type: 'authorization_code', code: await outOfBandCode(app, client), redirect_uri: OOB, client_id: other.client_id, client_secret: other.client_secret });
    expect(await foreign.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('another app') });

    const wrongSecret = await exchange(await outOfBandCode(app, client), { client_secret: 'nope' });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.headers.get('www-authenticate')).toBe('Basic');
    expect((await wrongSecret.json()).error).toBe('invalid_client');

    const unknownGrant = await tokenRequest(app, { grant_type: 'password', client_id: client.client_id, client_secret: client.client_secret }, { accept: 'application/problem+json' });
    expect(unknownGrant.headers.get('content-type')).toBe('application/problem+json');
    expect(await unknownGrant.json()).toMatchObject({ type: 'urn:svc:problem:oauth-unsupported_grant_type', status: 400, error: 'unsupported_grant_type' });
  });

  it('never redirects to an unregistered redirect URI or for an unknown app; other errors go back to the app', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const start = (query: Record<string, string>, accept = 'application/json') => app.request(`/oauth/authorize?${new URLSearchParams(query)}`, { headers: { accept } });

    const wrongRedirect = await start({ client_id: client.client_id, redirect_uri: 'https://evil.example/cb', response_type: 'code' });
    expect(wrongRedirect.status).toBe(400);
    expect(wrongRedirect.headers.get('location')).toBeNull();
    expect(await wrongRedirect.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const page = await start({ client_id: client.client_id, redirect_uri: 'https://evil.example/cb', response_type: 'code' }, 'text/html');
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_redirect_uri');

    const unknown = await start({ client_id: 'x'.repeat(43), redirect_uri: REDIRECT, response_type: 'code' });
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).error).toBe('invalid_client');

    const badType = await start({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'id_token', state: 's' });
    expect(badType.status).toBe(303);
    const back = new URL(badType.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('unsupported_response_type');
    expect(back.searchParams.get('state')).toBe('s');

    const beyond = await start({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'read push' });
    expect(new URL(beyond.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    const unknownScope = await start({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', scope: 'everything' });
    expect(new URL(unknownScope.headers.get('location')!).searchParams.get('error')).toBe('invalid_scope');
    const plain = await start({ client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
  });

  it('Deny sends the app access_denied; a wrong password shows the login page again', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const denied = await authorize(app, { client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code', state: 'z' }, { decision: 'deny' });
    expect(denied.status).toBe(303);
    const back = new URL(denied.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    const wrong = await authorize(app, { client_id: client.client_id, redirect_uri: REDIRECT, response_type: 'code' }, { password: 'not the password' });
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(html).toContain('The email or the password is wrong.');
    expect(html).toContain('name="next" value="/idp/oauth/authorize?');
  });
});

describe('refresh, revoke, client credentials and expiry', () => {
  it('refreshes (the old pair ends), revokes (the token stops at once)', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const auth = { client_id: client.client_id, client_secret: client.client_secret };
    const first = await (await tokenRequest(app, { grant_type: 'authorization_code', code: await outOfBandCode(app, client), redirect_uri: OOB, ...auth })).json();
    const refreshed = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token, ...auth });
    expect(refreshed.status).toBe(200);
    const second = await refreshed.json();
    expect(second.access_token).not.toBe(first.access_token);
    expect(second.scope).toBe('read write');
    expect((await app.request('/api/v1/accounts/verify_credentials', bearer(first.access_token))).status).toBe(401);

    expect((await app.request('/api/v1/accounts/verify_credentials', bearer(second.access_token))).status).toBe(200);
    const revoked = await app.request('/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: second.access_token, ...auth }) });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({});
    const after = await app.request('/api/v1/accounts/verify_credentials', bearer(second.access_token));
    expect(after.status).toBe(401);
    expect(await after.json()).toMatchObject({ error: 'The access token is invalid' });
    // Its refresh token went with it.
    expect((await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: second.refresh_token, ...auth })).status).toBe(400);
    const private401 = await app.request('/alice/private/', bearer(second.access_token));
    expect(private401.status).toBe(401);
  });

  it('client_credentials gives an app token: it acts for no user, and only within the app scopes', async () => {
    const app = await idpApp();
    const client = await registerApp(app);
    const response = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'read' }, { authorization: basic(client.client_id, client.client_secret) });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.refresh_token).toBeUndefined();
    const verified = await app.request('/api/v1/apps/verify_credentials', bearer(body.access_token));
    expect(await verified.json()).toMatchObject({ name: 'Test App', website: 'https://app.example' });
    expect((await app.request('/api/v1/accounts/verify_credentials', bearer(body.access_token))).status).toBe(422);
    expect((await app.request('/alice/private/', bearer(body.access_token))).status).toBe(401);
    const beyond = await tokenRequest(app, { grant_type: 'client_credentials', scope: 'push' }, { authorization: basic(client.client_id, client.client_secret) });
    expect((await beyond.json()).error).toBe('invalid_scope');
  });

  it('an expired token gets 401 invalid_token everywhere', async () => {
    let clock = Date.now();
    const app = await idpApp({}, { now: () => clock });
    const client = await registerApp(app);
    const code = await outOfBandCode(app, client);
    const { access_token } = await (await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret })).json();
    expect((await app.request('/alice/private/', bearer(access_token))).status).toBe(200);
    clock += 24 * 3600 * 1000 + 1000;
    const mastodon = await app.request('/api/v1/accounts/verify_credentials', bearer(access_token));
    expect(mastodon.status).toBe(401);
    expect(await mastodon.json()).toMatchObject({ error: 'The access token expired' });
    const solid = await app.request('/alice/private/', bearer(access_token));
    expect(solid.status).toBe(401);
    expect(solid.headers.get('www-authenticate')).toMatch(/error="invalid_token", error_description="the access token has expired"/);
  });
});
