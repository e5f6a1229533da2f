import { describe, expect, it } from 'vitest';
import { idpApp, pkce } from '../idp/support.ts';
import type { TestApp } from '../support/app.ts';
import { authorize, bearer, OOB, outOfBandCode, registerApp, tokenRequest } from './support.ts';

const RS_APP = 'https://notes.example';

/** A token of a registered app for `scope`, through the out-of-band flow. */
async function tokenFor(app: TestApp, scope: string): Promise<string> {
  const client = await registerApp(app, { scopes: 'read write' });
  const code = await outOfBandCode(app, client, { scope });
  const response = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret });
  return (await response.json()).access_token;
}

/** The implicit grant as a remoteStorage app asks for it: no registration, the app's origin as client_id, the token in the fragment. */
async function implicitToken(app: TestApp, scope: string): Promise<URL> {
  const answer = await authorize(app, { client_id: RS_APP, redirect_uri: `${RS_APP}/app/`, response_type: 'token', scope, state: 'rs' });
  expect(answer.status).toBe(303);
  return new URL(answer.headers.get('location')!);
}

const put = (token: string, body = 'hello') => bearer(token, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body });

describe('scopes on Solid resources', () => {
  it('read allows reading what the WebID may read, not writing', async () => {
    const app = await idpApp();
    const token = await tokenFor(app, 'read');
    const read = await app.request('/alice/private/', bearer(token));
    expect(read.status).toBe(200);
    expect(read.headers.get('wac-allow')).toMatch(/^user="read",/);
    const write = await app.request('/alice/private/note.txt', put(token));
    expect(write.status).toBe(403);
    expect(write.headers.get('www-authenticate')).toBe('Bearer realm="http://pod.test", error="insufficient_scope", scope="write"');
    expect(await write.json()).toMatchObject({ type: 'urn:svc:problem:insufficient-scope' });
    expect((await app.request('/alice/private/note.txt')).status).toBe(401);
  });

  it('write allows writing and appending, never Control (ACLs)', async () => {
    const app = await idpApp();
    const token = await tokenFor(app, 'read write');
    expect((await app.request('/alice/private/note.txt', put(token))).status).toBe(201);
    expect(await (await app.request('/alice/private/note.txt', bearer(token))).text()).toBe('hello');
    const acl = await app.request('/alice/private/.acl', bearer(token, { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: '' }));
    expect(acl.status).toBe(403);
    expect((await app.request('/alice/private/.acl', bearer(token))).status).toBe(403);
  });

  it('finer Mastodon scopes give nothing on Solid resources; what anyone may do stays allowed', async () => {
    const app = await idpApp();
    const token = await tokenFor(app, 'read:accounts');
    expect((await app.request('/alice/private/', bearer(token))).status).toBe(403);
    expect((await app.request('/alice/', bearer(token))).status).toBe(200);
    expect((await app.request('/api/v1/accounts/verify_credentials', bearer(token))).status).toBe(200);
  });
});

describe('implicit grant (response_type=token) for remoteStorage apps', () => {
  it('answers the token in the fragment; module scopes allow nothing outside /storage/', async () => {
    const app = await idpApp();
    const back = await implicitToken(app, 'documents:rw');
    expect(back.origin + back.pathname).toBe(`${RS_APP}/app/`);
    expect(back.search).toBe('');
    const fragment = new URLSearchParams(back.hash.slice(1));
    expect(fragment.get('token_type')).toBe('bearer');
    expect(fragment.get('scope')).toBe('documents:rw');
    expect(fragment.get('state')).toBe('rs');
    expect(fragment.get('expires_in')).toBe('86400');
    const token = fragment.get('access_token')!;
    const solid = await app.request('/alice/private/', bearer(token));
    expect(solid.status).toBe(403);
    expect(solid.headers.get('www-authenticate')).toContain('insufficient_scope');
    expect((await app.request('/alice/private/x.txt', put(token))).status).toBe(403);
  });

  it('an origin app must be sent back to its own origin, and a code for it needs PKCE', async () => {
    const app = await idpApp();
    const elsewhere = await app.request(`/oauth/authorize?${new URLSearchParams({ client_id: RS_APP, redirect_uri: 'https://evil.example/app/', response_type: 'token', scope: '*:rw' })}`);
    expect(elsewhere.status).toBe(400);
    expect((await elsewhere.json()).error).toBe('invalid_redirect_uri');
    const oob = await app.request(`/oauth/authorize?${new URLSearchParams({ client_id: RS_APP, redirect_uri: OOB, response_type: 'token' })}`);
    expect(oob.status).toBe(400);

    const withoutPkce = await authorize(app, { client_id: RS_APP, redirect_uri: `${RS_APP}/app/`, response_type: 'code', scope: '*:r' });
    const code = new URL(withoutPkce.headers.get('location')!).searchParams.get('code')!;
    const refused = await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: `${RS_APP}/app/`, client_id: RS_APP });
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('PKCE') });

    const { verifier, challenge } = await pkce();
    const withPkce = await authorize(app, { client_id: RS_APP, redirect_uri: `${RS_APP}/app/`, response_type: 'code', scope: '*:r', code_challenge: challenge, code_challenge_method: 'S256' });
    const pkceCode = new URL(withPkce.headers.get('location')!).searchParams.get('code')!;
    const accepted = await tokenRequest(app, { grant_type: 'authorization_code', code: pkceCode, redirect_uri: `${RS_APP}/app/`, client_id: RS_APP, code_verifier: verifier });
    expect(accepted.status).toBe(200);
    expect((await accepted.json()).scope).toBe('*:r');
  });
});
