import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { createApp } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { InviteStore } from '../../src/invites/store.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';
import { BASE, cookiesFrom, form, hiddenField, json, PASSWORD } from './support.ts';

const OIDC_ISSUER = 'http://www.w3.org/ns/solid/terms#oidcIssuer';

async function issuersOf(request: (path: string, init?: RequestInit) => Promise<Response>, path: string, base: string): Promise<string[]> {
  const response = await request(path, { headers: { accept: 'application/ld+json' } });
  const quads = await parseRdf(await response.text(), 'application/ld+json', base);
  return quads.filter((q) => q.predicate.value === OIDC_ISSUER).map((q) => q.object.value);
}

describe('pods with --idp', () => {
  it('POST /.pods needs email and password and answers name, webId, podUri, idpIssuer and loginUrl', async () => {
    const { request } = makeApp({ idp: true });
    const response = await request('/.pods', json({ name: 'alice', email: 'Alice@Example.org', password: PASSWORD }));
    expect(response.status).toBe(201);
    expect(await response.json()).toEqual({
      name: 'alice',
      webId: `${BASE}/alice/#me`,
      podUri: `${BASE}/alice/`,
      idpIssuer: `${BASE}/`,
      loginUrl: `${BASE}/idp/auth`,
    });
    expect(await issuersOf(request, '/alice/', `${BASE}/alice/`)).toEqual([`${BASE}/`]);
  });

  it('names the fixed --idp-issuer in answers and profiles', async () => {
    const { request } = makeApp({ idp: true, idpIssuer: 'https://login.example' });
    const body = await (await request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).json();
    expect(body).toMatchObject({ idpIssuer: 'https://login.example/', loginUrl: 'https://login.example/idp/auth' });
    expect(await issuersOf(request, '/alice/', `${BASE}/alice/`)).toEqual(['https://login.example/']);
    const discovery = await (await request('/.well-known/openid-configuration')).json();
    expect(discovery.issuer).toBe('https://login.example/');
  });

  it('keeps the answer and profile without --idp unchanged', async () => {
    const { request } = makeApp({});
    const body = await (await request('/.pods', json({ name: 'alice' }))).json();
    expect(Object.keys(body).sort()).toEqual(['name', 'podUri', 'token', 'webId']);
    expect(await issuersOf(request, '/alice/', `${BASE}/alice/`)).toEqual([]);
  });

  it.each([
    ['no email', { name: 'alice', password: PASSWORD }, 'invalid-email'],
    ['a malformed email', { name: 'alice', email: 'alice', password: PASSWORD }, 'invalid-email'],
    ['no password', { name: 'alice', email: 'alice@example.org' }, 'invalid-password'],
    ['a short password', { name: 'alice', email: 'alice@example.org', password: 'short' }, 'invalid-password'],
  ])('refuses %s with 400 and creates nothing', async (_what, body, type) => {
    const { request, storage } = makeApp({ idp: true });
    const response = await request('/.pods', json(body));
    expect(response.status).toBe(400);
    expect((await response.json()).type).toBe(`urn:svc:problem:${type}`);
    expect(await storage.head('/alice/')).toBeNull();
  });

  it('refuses a second account for the same email with 409, leaving no pod behind', async () => {
    const { request, storage } = makeApp({ idp: true });
    expect((await request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const again = await request('/.pods', json({ name: 'alice2', email: 'ALICE@example.org', password: PASSWORD }));
    expect(again.status).toBe(409);
    expect(await storage.head('/alice2/')).toBeNull();
  });

  it('removes the account again when the pod cannot be made (name taken)', async () => {
    const { request } = makeApp({ idp: true });
    await request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
    expect((await request('/.pods', json({ name: 'alice', email: 'bob@example.org', password: PASSWORD }))).status).toBe(409);
    expect((await request('/.pods', json({ name: 'bob', email: 'bob@example.org', password: PASSWORD }))).status).toBe(201);
  });

  it('keeps account records private', async () => {
    const { request } = makeApp({ idp: true, public: true });
    await request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
    for (const path of ['/.server/idp/', '/.server/idp/signing-key.json', '/.server/idp/accounts/']) {
      expect((await request(path)).status).toBeGreaterThanOrEqual(400);
    }
  });
});

describe('/idp/register', () => {
  it('registers from JSON like POST /.pods', async () => {
    const { request } = makeApp({ idp: true });
    const response = await request('/idp/register', json({ name: 'carol', email: 'carol@example.org', password: PASSWORD }));
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ webId: `${BASE}/carol/#me`, idpIssuer: `${BASE}/` });
  });

  it('registers from the HTML form with its CSRF value, and refuses the form without it', async () => {
    const { request } = makeApp({ idp: true });
    const shown = await request('/idp/register');
    expect(shown.status).toBe(200);
    const cookies = cookiesFrom(shown);
    const csrf = hiddenField(await shown.text(), 'csrf');
    const fields = { email: 'dave@example.org', password: PASSWORD, name: 'dave' };
    expect((await request('/idp/register', form({ ...fields, csrf: 'forged' }, { cookie: cookies }))).status).toBe(403);
    const done = await request('/idp/register', form({ ...fields, csrf }, { cookie: cookies }));
    expect(done.status).toBe(201);
    expect(await done.text()).toContain(`${BASE}/dave/#me`);
    const taken = await request('/idp/register', form({ ...fields, name: 'dave2', csrf }, { cookie: cookies }));
    expect(taken.status).toBe(409);
    expect(await taken.text()).toContain('An account with this email address exists already.');
  });

  it('counts registrations: the 6th within an hour from one address gets 429 with Retry-After', async () => {
    // A fixed clock keeps all attempts in one window; the address comes from X-Forwarded-For.
    const config = resolveConfig({ flags: { quiet: true, idp: true, trustProxy: true } });
    const app = createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined, now: () => Date.UTC(2026, 0, 1, 12, 30) });
    const attempt = () => app.fetch(new Request(`${BASE}/idp/register`, json({ name: 'x', email: 'not an email', password: PASSWORD }, { 'x-forwarded-for': '192.0.2.9' })));
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual(Array(5).fill(400));
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('asks for the invite code in --invite-only mode and consumes one use', async () => {
    const { request, storage } = makeApp({ idp: true, inviteOnly: true });
    const invites = new InviteStore(storage);
    const { code } = await invites.create();
    const page = await (await request('/idp/register')).text();
    expect(page).toContain('name="invite"');
    const without = await request('/idp/register', json({ name: 'erin', email: 'erin@example.org', password: PASSWORD }));
    expect(without.status).toBe(403);
    const withCode = await request('/idp/register', json({ name: 'erin', email: 'erin@example.org', password: PASSWORD, invite: code }));
    expect(withCode.status).toBe(201);
    expect((await invites.list())[0]!.uses).toBe(1);
    // A refused registration (email taken) gives the use back.
    const second = await invites.create();
    expect((await request('/idp/register', json({ name: 'erin2', email: 'erin@example.org', password: PASSWORD, invite: second.code }))).status).toBe(409);
    expect((await invites.list())[1]!.uses).toBe(0);
  });

  it('in single-user mode makes only the owner\'s account, with the owner token, and no pod', async () => {
    const { app, request, storage } = makeApp({ idp: true, singleUser: true });
    const { token } = await app.singleUserPod!();
    expect(await issuersOf(request, '/me/', `${BASE}/me/`)).toEqual([`${BASE}/`]);
    expect((await request('/idp/register', json({ name: 'x', email: 'x@example.org', password: PASSWORD }))).status).toBe(403);
    expect((await request('/idp/register', json({ email: 'x@example.org', password: PASSWORD, token: 'not.a.token' }))).status).toBe(403);
    expect(await (await request('/idp/register')).text()).toContain('name="token"');
    const made = await request('/idp/register', json({ email: 'owner@example.org', password: PASSWORD }, { authorization: `Bearer ${token}` }));
    expect(made.status).toBe(201);
    expect(await made.json()).toMatchObject({ webId: `${BASE}/me/#me`, podUri: `${BASE}/me/`, loginUrl: `${BASE}/idp/auth` });
    expect(await storage.head('/x/')).toBeNull();
    const login = await (await request('/idp/credentials', json({ email: 'owner@example.org', password: PASSWORD }))).json();
    expect(login.webid).toBe(`${BASE}/me/#me`);
    expect((await request('/me/private/', { headers: { authorization: `Bearer ${login.access_token}` } })).status).toBe(200);
    expect((await request('/.pods', json({ name: 'y', email: 'y@example.org', password: PASSWORD }))).status).toBe(403);
  });
});

describe('discovery', () => {
  it('publishes every field a Solid-OIDC client needs, and the JWKS', async () => {
    const { request } = makeApp({ idp: true });
    const response = await request('/.well-known/openid-configuration');
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document).toMatchObject({
      issuer: `${BASE}/`,
      authorization_endpoint: `${BASE}/idp/auth`,
      token_endpoint: `${BASE}/idp/token`,
      jwks_uri: `${BASE}/idp/jwks`,
      registration_endpoint: `${BASE}/idp/reg`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['ES256'],
      solid_oidc_supported: 'https://solidproject.org/TR/solid-oidc',
    });
    expect(document.scopes_supported).toEqual(expect.arrayContaining(['openid', 'webid', 'offline_access']));
    expect(document.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(document.claims_supported).toContain('webid');
    expect(document.dpop_signing_alg_values_supported).toContain('ES256');
    expect(document.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    const jwks = await (await request('/idp/jwks')).json();
    expect(jwks.keys).toHaveLength(1);
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', kid: expect.any(String) });
    expect(jwks.keys[0].d).toBeUndefined();
  });

  it('keeps the signing key across restarts (same storage)', async () => {
    const first = makeApp({ idp: true });
    const kid = (await (await first.request('/idp/jwks')).json()).keys[0].kid;
    const second = makeApp({ idp: true }, first.storage);
    expect((await (await second.request('/idp/jwks')).json()).keys[0].kid).toBe(kid);
  });

  it('is absent without --idp (an ordinary, missing resource)', async () => {
    const { request } = makeApp({ public: true });
    expect((await request('/.well-known/openid-configuration')).status).toBe(404);
    expect((await request('/idp/jwks')).status).toBe(404);
  });
});
