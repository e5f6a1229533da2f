import { describe, expect, it } from 'vitest';
import { form, idpApp, json, PASSWORD } from '../idp/support.ts';
import { BASE, makeApp } from '../support/app.ts';
import { bearer, OOB, outOfBandCode, registerApp, tokenRequest } from '../oauth/support.ts';

describe('Mastodon API without ActivityPub', () => {
  it('POST /api/v1/apps answers the Application entity with its secret (JSON or form, one or several redirect URIs)', async () => {
    const app = await idpApp();
    const response = await app.request('/api/v1/apps', form({ client_name: 'Form App', redirect_uris: OOB, scopes: 'read write', website: 'https://form.example' }));
    expect(response.status).toBe(200);
    const entity = await response.json();
    expect(entity).toMatchObject({ name: 'Form App', website: 'https://form.example', scopes: ['read', 'write'], redirect_uri: OOB, redirect_uris: [OOB], client_secret_expires_at: 0 });
    expect(entity.client_id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(entity.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(entity.id).toBe(entity.client_id);
    const listed = await app.request('/api/v1/apps', json({ client_name: 'Array App', redirect_uris: ['https://a.example/cb', 'com.example.app://cb'] }));
    expect(await listed.json()).toMatchObject({ scopes: ['read'], website: null, redirect_uris: ['https://a.example/cb', 'com.example.app://cb'] });
  });

  it('refuses apps without a name or with bad redirect URIs or scopes (422, stored nothing)', async () => {
    const app = await idpApp();
    for (const body of [{ redirect_uris: OOB }, { client_name: 'x', redirect_uris: 'javascript:alert(1)' }, { client_name: 'x', redirect_uris: 'https://a.example/#frag' }, { client_name: 'x', redirect_uris: 42 }, { client_name: 'x' }]) {
      const response = await app.request('/api/v1/apps', json(body));
      expect(response.status).toBe(422);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect((await response.json()).error).toMatch(/^Validation failed/);
    }
    const scopes = await app.request('/api/v1/apps', json({ client_name: 'x', redirect_uris: OOB, scopes: 'read everything' }));
    expect(scopes.status).toBe(400);
    expect((await scopes.json()).error).toBe('invalid_scope');
    expect(await app.storage.head('/.server/oauth/apps/')).toBeNull();
    expect((await app.request('/api/v1/apps', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(415);
    expect((await app.request('/api/v1/apps', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' })).status).toBe(400);
  });

  it('instance v1 and v2 have Mastodon\'s fields and types, and advertise no streaming and no uploads without ActivityPub', async () => {
    const app = await idpApp();
    const v1 = await (await app.request('/api/v1/instance')).json();
    expect(v1).toMatchObject({ uri: 'pod.test', title: 'pod.test', version: expect.stringMatching(/^4\.\d+\.\d+ \(compatible; svc /), registrations: true, approval_required: false, stats: { user_count: 1, status_count: 0, domain_count: 0 }, urls: { streaming_api: '' }, languages: ['en'], rules: [] });
    expect(v1.configuration.statuses).toMatchObject({ max_characters: 500, max_media_attachments: 0 });
    expect(v1.configuration.media_attachments.supported_mime_types).toEqual([]);
    const v2 = await (await app.request('/api/v2/instance')).json();
    expect(v2).toMatchObject({ domain: 'pod.test', usage: { users: { active_month: 1 } }, registrations: { enabled: true, approval_required: false }, contact: { email: '', account: null }, thumbnail: { url: expect.any(String) }, configuration: { urls: { streaming: '' } } });
    const health = await app.request('/api/v1/streaming/health');
    expect(health.status).toBe(404);
    expect((await health.json()).error).toMatch(/^Record not found: the streaming API .* need ActivityPub/);
    expect((await app.request('/api/v1/streaming?stream=public')).status).toBe(404);
  });

  it('accounts: by pod name (anyone), verify_credentials with a token whose scopes allow it', async () => {
    const app = await idpApp();
    const alice = await app.request('/api/v1/accounts/alice');
    expect(alice.status).toBe(200);
    const entity = await alice.json();
    expect(entity).toMatchObject({ id: 'alice', username: 'alice', acct: 'alice', display_name: 'alice', url: 'http://pod.test/alice/', uri: 'http://pod.test/alice/#me', locked: false, bot: false, followers_count: 0, emojis: [], fields: [] });
    expect(entity.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(entity.source).toBeUndefined();
    for (const id of ['bob', 'Alice', '..', 'a'.repeat(64)]) {
      const missing = await app.request(`/api/v1/accounts/${encodeURIComponent(id)}`);
      expect(missing.status).toBe(404);
      expect((await missing.json()).error).toMatch(/^Record not found/);
    }

    const anonymous = await app.request('/api/v1/accounts/verify_credentials');
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: 'The access token is invalid' });
    expect((await app.request('/api/v1/accounts/verify_credentials', bearer('not-a-token'))).status).toBe(401);

    const client = await registerApp(app);
    const code = await outOfBandCode(app, client, { scope: 'write' });
    const { access_token } = await (await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret })).json();
    const outside = await app.request('/api/v1/accounts/verify_credentials', bearer(access_token));
    expect(outside.status).toBe(403);
    expect((await outside.json()).error).toBe('This action is outside the authorized scopes');
    expect((await app.request('/api/v1/statuses', { method: 'POST' })).status).toBe(404);
  });

  it('the pod at the root of a single-user server is the account named by --ap-username', async () => {
    const app = makeApp({ idp: true, singleUser: true, singleUserName: '', apUsername: 'bob' });
    const { token } = await app.app.singleUserPod!();
    const owner = await app.request('/idp/register', json({ email: 'alice@example.org', password: PASSWORD }, { authorization: `Bearer ${token}` }));
    expect(owner.status).toBe(201);
    expect(await (await app.request('/api/v1/accounts/bob')).json()).toMatchObject({ id: 'bob', url: `${BASE}/`, uri: `${BASE}/profile/card#me` });
    expect((await (await app.request('/api/v1/instance')).json()).stats.user_count).toBe(1);
    const client = await registerApp(app);
    const code = await outOfBandCode(app, client, { scope: 'read' });
    const { access_token } = await (await tokenRequest(app, { grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret })).json();
    expect(await (await app.request('/api/v1/accounts/verify_credentials', bearer(access_token))).json()).toMatchObject({ id: 'bob', username: 'bob' });
  });
});
