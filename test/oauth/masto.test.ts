/**
 * The whole flow with the `masto` client library against a real svc process: register the app, the
 * out-of-band authorization (login and consent forms driven with fetch, as a browser would), the code
 * exchanged by masto, then masto's calls with the token; client credentials, revocation, errors as masto
 * reads them, and the same token as Bearer on a Solid resource.
 */
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { PASSWORD } from '../idp/support.ts';
import { outOfBandCode, OOB } from './support.ts';

describe('the masto client library through OAuth (out-of-band code) and the Mastodon API', () => {
  let svc: RunningSvc;
  const over = () => ({ request: (path: string, init: RequestInit = {}) => fetch(svc.base + path, { ...init, redirect: 'manual' }) });

  beforeAll(async () => {
    svc = await startSvc(['--idp']);
    const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: PASSWORD }) });
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
  });

  it('registers, authorizes, exchanges the code, reads the account, and revokes', async () => {
    const anonymous = createRestAPIClient({ url: svc.base });
    const registered = await anonymous.v1.apps.create({ clientName: 'masto test', redirectUris: OOB, scopes: 'read write', website: 'https://masto.example' });
    expect(registered.name).toBe('masto test');
    const clientId = registered.clientId!;
    const clientSecret = registered.clientSecret!;

    const code = await outOfBandCode(over(), { client_id: clientId, client_secret: clientSecret });
    const oauth = createOAuthAPIClient({ url: svc.base });
    const token = await oauth.token.create({ grantType: 'authorization_code', clientId, clientSecret, redirectUri: OOB, code, scope: 'read write' });
    expect(token.tokenType).toBe('Bearer');
    expect(token.scope).toBe('read write');

    const client = createRestAPIClient({ url: svc.base, accessToken: token.accessToken });
    const me = await client.v1.accounts.verifyCredentials();
    expect(me).toMatchObject({ id: 'alice', username: 'alice', acct: 'alice', url: `${svc.base}/alice/`, source: { privacy: 'public' } });
    expect((await client.v1.accounts.$select('alice').fetch()).username).toBe('alice');
    expect((await client.v1.instance.fetch()).stats.userCount).toBe(1);
    expect((await client.v2.instance.fetch()).domain).toBe(new URL(svc.base).host);

    // The same token is the account's WebID on Solid resources.
    const solid = await fetch(`${svc.base}/alice/private/`, { headers: { authorization: `Bearer ${token.accessToken}` } });
    expect(solid.status).toBe(200);

    const reused = await oauth.token.create({ grantType: 'authorization_code', clientId, clientSecret, redirectUri: OOB, code }).catch((error: unknown) => error);
    expect(reused).toMatchObject({ statusCode: 400, message: 'invalid_grant' });

    await oauth.revoke({ clientId, clientSecret, token: token.accessToken });
    const after = await client.v1.accounts.verifyCredentials().catch((error: unknown) => error);
    expect(after).toMatchObject({ statusCode: 401, message: 'The access token is invalid' });
    expect((await fetch(`${svc.base}/alice/private/`, { headers: { authorization: `Bearer ${token.accessToken}` } })).status).toBe(401);
  });

  it('gets an app token with client_credentials', async () => {
    const anonymous = createRestAPIClient({ url: svc.base });
    const registered = await anonymous.v1.apps.create({ clientName: 'masto app token', redirectUris: OOB, scopes: 'read' });
    const oauth = createOAuthAPIClient({ url: svc.base });
    const token = await oauth.token.create({ grantType: 'client_credentials', clientId: registered.clientId!, clientSecret: registered.clientSecret!, redirectUri: OOB, scope: 'read' });
    const client = createRestAPIClient({ url: svc.base, accessToken: token.accessToken });
    expect((await client.v1.apps.verifyCredentials()).name).toBe('masto app token');
    const noUser = await client.v1.accounts.verifyCredentials().catch((error: unknown) => error);
    expect(noUser).toMatchObject({ statusCode: 422, message: 'This method requires an authenticated user' });
  });
});
