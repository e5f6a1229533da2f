import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { authorize, BASE, basic, cookiesFrom, dpopKey, form, hiddenField, idpApp, json, PASSWORD, pkce, REDIRECT, registerClient, TOKEN_URL } from './support.ts';

let scriptKey: ReturnType<typeof dpopKey> | undefined;

/** A token request; with a DPoP proof of one key unless it names its own proof or `proof` is false. */
async function token(app: TestApp, fields: Record<string, string>, headers: Record<string, string> = {}, proof = true): Promise<Response> {
  const dpop: Record<string, string> = proof && !('dpop' in headers) ? { dpop: await (await (scriptKey ??= dpopKey())).proof('POST', TOKEN_URL) } : {};
  return app.request('/idp/token', form(fields, { ...headers, ...dpop }));
}

describe('authorization-code flow with PKCE', () => {
  it('logs in, consents, redirects with code, state and iss, and answers DPoP-bound tokens', async () => {
    const app = await idpApp();
    const client = await registerClient(app);
    const { verifier, challenge } = await pkce();
    const back = await authorize(app, client.client_id, challenge);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st4te');
    expect(back.searchParams.get('iss')).toBe(`${BASE}/`);
    const code = back.searchParams.get('code')!;

    const key = await dpopKey();
    const response = await token(
      app,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
      { authorization: basic(client.client_id, client.client_secret!), dpop: await key.proof('POST', TOKEN_URL) },
    );
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ token_type: 'DPoP', expires_in: 3600, refresh_token: expect.any(String), id_token: expect.any(String) });
    const jwks = createLocalJWKSet(await (await app.request('/idp/jwks')).json());
    const { payload: access } = await jwtVerify(body.access_token, jwks, { issuer: `${BASE}/`, audience: 'solid' });
    expect(access).toMatchObject({ webid: `${BASE}/alice/#me`, client_id: client.client_id, cnf: { jkt: key.thumbprint }, jti: expect.any(String) });
    expect(access.aud).toEqual(['solid', client.client_id]);
    const { payload: id } = await jwtVerify(body.id_token, jwks, { issuer: `${BASE}/`, audience: client.client_id });
    expect(id).toMatchObject({ webid: `${BASE}/alice/#me`, sub: `${BASE}/alice/#me`, azp: client.client_id, nonce: 'n0nce' });

    // Refresh: a new pair, the old refresh token used up; the new access token is bound to the proof's key.
    const refreshed = await token(app, { grant_type: 'refresh_token', refresh_token: body.refresh_token }, { authorization: basic(client.client_id, client.client_secret!), dpop: await key.proof('POST', TOKEN_URL) });
    expect(refreshed.status).toBe(200);
    const next = await refreshed.json();
    expect(next.refresh_token).not.toBe(body.refresh_token);
    expect(decodeJwt(next.access_token).cnf).toEqual({ jkt: key.thumbprint });
    const reused = await token(app, { grant_type: 'refresh_token', refresh_token: body.refresh_token }, { authorization: basic(client.client_id, client.client_secret!), dpop: await key.proof('POST', TOKEN_URL) });
    expect(reused.status).toBe(400);
    expect((await reused.json()).error).toBe('invalid_grant');
    const withoutSecret = await token(app, { grant_type: 'refresh_token', refresh_token: next.refresh_token, client_id: client.client_id }, { dpop: await key.proof('POST', TOKEN_URL) });
    expect(withoutSecret.status).toBe(401);
  });

  it('works for the public client without a secret', async () => {
    const app = await idpApp();
    const publicClient = 'http://www.w3.org/ns/solid/terms#PublicOidcClient';
    const { verifier, challenge } = await pkce();
    const back = await authorize(app, publicClient, challenge, 'public client');
    const key = await dpopKey();
    const response = await token(app, { grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: REDIRECT, code_verifier: verifier, client_id: publicClient }, { dpop: await key.proof('POST', TOKEN_URL) });
    expect(response.status).toBe(200);
    const { refresh_token } = await response.json();
    // A public client's refresh token is bound to its DPoP key (RFC 9449 §5): another key cannot use it.
    const otherKey = await dpopKey();
    const stolen = await token(app, { grant_type: 'refresh_token', refresh_token, client_id: publicClient }, { dpop: await otherKey.proof('POST', TOKEN_URL) });
    expect(stolen.status).toBe(400);
    expect((await stolen.json()).error).toBe('invalid_grant');
  });

  describe('refusals', () => {
    async function codeFor(app: TestApp, client: { client_id: string }) {
      const { verifier, challenge } = await pkce();
      return { code: (await authorize(app, client.client_id, challenge)).searchParams.get('code')!, verifier };
    }
    const expectOAuthError = async (response: Response, status: number, error: string) => {
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect((await response.json()).error).toBe(error);
    };

    it('wrong redirect_uri, reused code, wrong PKCE verifier, bad client secret', async () => {
      const app = await idpApp();
      const client = await registerClient(app);
      const auth = { authorization: basic(client.client_id, client.client_secret!) };

      const first = await codeFor(app, client);
      await expectOAuthError(await token(app, { grant_type: 'authorization_code', code: first.code, redirect_uri: 'https://app.example/other', code_verifier: first.verifier }, auth), 400, 'invalid_grant');

      const second = await codeFor(app, client);
      const used = { grant_type: 'authorization_code', code: second.code, redirect_uri: REDIRECT, code_verifier: second.verifier };
      expect((await token(app, used, auth)).status).toBe(200);
      await expectOAuthError(await token(app, used, auth), 400, 'invalid_grant');

      const third = await codeFor(app, client);
      const { verifier: otherVerifier } = await pkce();
      await expectOAuthError(await token(app, { grant_type: 'authorization_code', code: third.code, redirect_uri: REDIRECT, code_verifier: otherVerifier }, auth), 400, 'invalid_grant');

      const fourth = await codeFor(app, client);
      await expectOAuthError(
        await token(app, { grant_type: 'authorization_code', code: fourth.code, redirect_uri: REDIRECT, code_verifier: fourth.verifier }, { authorization: basic(client.client_id, 'not-the-secret') }),
        401,
        'invalid_client',
      );
      await expectOAuthError(await token(app, { grant_type: 'authorization_code', code: fourth.code, redirect_uri: REDIRECT, code_verifier: fourth.verifier, client_id: client.client_id }), 401, 'invalid_client');
      await expectOAuthError(await token(app, { grant_type: 'password' }, auth), 400, 'unsupported_grant_type');
    });

    it('shows an error page, not a redirect, for an unregistered redirect_uri or unknown client', async () => {
      const app = await idpApp();
      const client = await registerClient(app);
      const { challenge } = await pkce();
      const base = { response_type: 'code', scope: 'openid webid', code_challenge: challenge, code_challenge_method: 'S256' };
      const wrongRedirect = await app.request(`/idp/auth?${new URLSearchParams({ ...base, client_id: client.client_id, redirect_uri: 'https://evil.example/cb' })}`);
      expect(wrongRedirect.status).toBe(400);
      expect(await wrongRedirect.text()).toContain('is not one the client');
      const unknown = await app.request(`/idp/auth?${new URLSearchParams({ ...base, client_id: 'nope', redirect_uri: REDIRECT })}`);
      expect(unknown.status).toBe(400);
    });

    it('sends the error back to the client when PKCE is missing', async () => {
      const app = await idpApp();
      const client = await registerClient(app);
      const response = await app.request(`/idp/auth?${new URLSearchParams({ response_type: 'code', scope: 'openid', client_id: client.client_id, redirect_uri: REDIRECT, state: 'x' })}`);
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!);
      expect(location.searchParams.get('error')).toBe('invalid_request');
      expect(location.searchParams.get('state')).toBe('x');
    });

    it('shows the public client\'s errors on a page: its redirect_uri is vouched for by nobody', async () => {
      const app = await idpApp();
      const query = { response_type: 'token', scope: 'openid', client_id: 'http://www.w3.org/ns/solid/terms#PublicOidcClient', redirect_uri: 'https://anywhere.example/' };
      const response = await app.request(`/idp/auth?${new URLSearchParams(query)}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(await response.text()).toContain('Only response_type=code is supported.');
    });

    it('a wrong password on the login form: 401 page with the error, no session', async () => {
      const app = await idpApp();
      const shown = await app.request('/idp/auth');
      const cookies = cookiesFrom(shown);
      const csrf = hiddenField(await shown.text(), 'csrf');
      const refused = await app.request('/idp/auth', form({ csrf, email: 'alice@example.org', password: 'nope nope' }, { cookie: cookies }));
      expect(refused.status).toBe(401);
      expect(await refused.text()).toContain('The email or the password is wrong.');
      expect(refused.headers.getSetCookie()).toEqual([]);
    });
  });
});

describe('client credentials', () => {
  it('made with the JSON API, used with client_credentials (Basic), revoked', async () => {
    const app = await idpApp();
    const made = await app.request('/idp/client-credentials', json({ email: 'alice@example.org', password: PASSWORD, name: 'my script' }));
    expect(made.status).toBe(201);
    const { client_id, client_secret, webid } = await made.json();
    expect(webid).toBe(`${BASE}/alice/#me`);

    const key = await dpopKey();
    const response = await token(
      app,
      { grant_type: 'client_credentials', scope: 'openid offline_access webid', token_endpoint_auth_method: 'client_secret_basic' },
      { authorization: basic(client_id, client_secret), dpop: await key.proof('POST', TOKEN_URL) },
    );
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token)).toMatchObject({ webid: `${BASE}/alice/#me`, iss: `${BASE}/`, aud: ['solid', client_id], client_id });

    const bodyAuth = await token(app, { grant_type: 'client_credentials', client_id, client_secret });
    expect(bodyAuth.status).toBe(200);
    expect((await bodyAuth.json()).token_type).toBe('DPoP');

    const listed = await app.request('/idp/client-credentials', { headers: { authorization: basic('alice@example.org', PASSWORD) } });
    expect(await listed.json()).toEqual([{ client_id, name: 'my script', created: expect.any(String) }]);
    expect((await app.request(`/idp/client-credentials/${client_id}`, { method: 'DELETE', headers: { authorization: basic('alice@example.org', PASSWORD) } })).status).toBe(204);
    expect((await token(app, { grant_type: 'client_credentials', client_id, client_secret })).status).toBe(401);
  });

  it('made, listed and revoked on the account page', async () => {
    const app = await idpApp();
    const shown = await app.request('/idp/auth');
    let cookies = cookiesFrom(shown);
    const csrf = hiddenField(await shown.text(), 'csrf');
    const loggedIn = await app.request('/idp/auth', form({ csrf, email: 'alice@example.org', password: PASSWORD }, { cookie: cookies }));
    expect(loggedIn.status).toBe(303);
    expect(loggedIn.headers.get('location')).toBe('/idp/account');
    cookies = cookiesFrom(loggedIn, cookies);
    const made = await app.request('/idp/account/credentials', form({ csrf, name: 'backup job' }, { cookie: cookies }));
    expect(made.status).toBe(201);
    const page = await made.text();
    const clientId = /client_id: <code>([^<]+)<\/code>/.exec(page)![1]!;
    const secret = /client_secret: <code>([^<]+)<\/code>/.exec(page)![1]!;
    expect((await token(app, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).status).toBe(200);
    const account = await (await app.request('/idp/account', { headers: { cookie: cookies } })).text();
    expect(account).toContain('backup job');
    expect(account).not.toContain(secret);
    expect((await app.request('/idp/account/credentials/revoke', form({ csrf, client_id: clientId }, { cookie: cookies }))).status).toBe(200);
    expect((await token(app, { grant_type: 'client_credentials', client_id: clientId, client_secret: secret })).status).toBe(401);

    // Changing the password ends other sessions and takes the new password.
    const changed = await app.request('/idp/account/password', form({ csrf, current: PASSWORD, password: 'a new password' }, { cookie: cookies }));
    expect(changed.status).toBe(200);
    expect((await app.request('/idp/account', { headers: { cookie: cookies } })).status).toBe(303);
    expect((await app.request('/idp/credentials', json({ email: 'alice@example.org', password: 'a new password' }))).status).toBe(200);
  });

  it('issues no token without a DPoP proof, and the resources take none of its tokens as Bearer', async () => {
    const app = await idpApp();
    const made = await app.request('/idp/client-credentials', json({ email: 'alice@example.org', password: PASSWORD, name: 'my script' }));
    const { client_id, client_secret } = await made.json();
    const unbound = await token(app, { grant_type: 'client_credentials', client_id, client_secret }, {}, false);
    expect(unbound.status).toBe(400);
    expect((await unbound.json()).error).toBe('invalid_dpop_proof');

    const bound = await (await token(app, { grant_type: 'client_credentials', client_id, client_secret })).json();
    const asBearer = await app.request('/alice/private/', { headers: { authorization: `Bearer ${bound.access_token}` } });
    expect(asBearer.status).toBe(401);
    // The script login still answers a Bearer token, which the resources take.
    const script = await (await app.request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }))).json();
    expect(script.token_type).toBe('Bearer');
    expect((await app.request('/alice/private/', { headers: { authorization: `Bearer ${script.access_token}` } })).status).toBe(200);
  });

  it('refuses client_credentials for a dynamically registered client', async () => {
    const app = await idpApp();
    const client = await registerClient(app);
    const response = await token(app, { grant_type: 'client_credentials' }, { authorization: basic(client.client_id, client.client_secret!) });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('unauthorized_client');
  });
});
