/**
 * The headers that keep stored content away from the server's own pages (src/http/isolation.ts,
 * docs/security.md), through app.fetch. test/http/isolation-browser.test.ts replays the attacks in Chromium.
 */
import { describe, expect, it } from 'vitest';
import { STORED_CONTENT_POLICY } from '../../src/http/isolation.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, makeApp } from '../support/app.ts';
import { cookiesFrom, form, hiddenField, idpApp, json, PASSWORD } from '../idp/support.ts';

const SANDBOX = STORED_CONTENT_POLICY;
const PAGE = '<!doctype html><title>x</title><script>alert(1)</script>';

async function bearerOf(app: { request(path: string, init?: RequestInit): Promise<Response> }, email = 'alice@example.org'): Promise<string> {
  return (await (await app.request('/idp/credentials', json({ email, password: PASSWORD }))).json()).access_token;
}

describe('stored content in path mode', () => {
  it('a stored page, a container and an error each carry the sandbox without allow-same-origin, and nosniff', async () => {
    const app = await idpApp();
    const token = await bearerOf(app);
    expect((await app.request('/alice/public/page.html', { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/html' }, body: PAGE })).status).toBe(201);
    for (const path of ['/alice/public/page.html', '/alice/public/', '/alice/nothing-here', '/alice/']) {
      const response = await app.request(path, { headers: { accept: 'text/html', 'sec-fetch-mode': 'cors' } });
      expect(response.headers.get('content-security-policy'), path).toBe(SANDBOX);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
    }
    // A window opening the refused URL gets the server's own page (its strict policy), with nothing stored in it.
    const refused = await app.request('/alice/nothing-here', { headers: { accept: 'text/html', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(SANDBOX).toMatch(/^sandbox /);
    expect(SANDBOX).not.toContain('allow-same-origin');
    expect(SANDBOX).not.toContain('allow-top-navigation');
  });

  it("the identity provider's pages keep their own policy: no framing, no cache, their own browsing context group", async () => {
    const app = await idpApp();
    const response = await app.request('/idp/auth', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    const policy = response.headers.get('content-security-policy')!;
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).not.toContain('unsafe-inline');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('CORS', () => {
  it('reflects an origin with credentials on resources, never on the server pages, nor for a sandboxed page', async () => {
    const app = await idpApp();
    const resource = await app.request('/alice/', { headers: { origin: 'https://app.example' } });
    expect(resource.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(resource.headers.get('access-control-allow-credentials')).toBe('true');
    for (const path of ['/idp/account', '/idp/auth', '/idp/token', '/oauth/authorize', '/idp/oauth/authorize']) {
      const response = await app.request(path, { headers: { origin: 'http://alice.pod.test' } });
      expect(response.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(response.headers.get('access-control-allow-credentials'), path).toBeNull();
    }
    const preflight = await app.request('/idp/token', { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-headers': 'dpop, content-type' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('dpop, content-type');
    const sandboxed = await app.request('/alice/', { headers: { origin: 'null' } });
    expect(sandboxed.headers.get('access-control-allow-origin')).toBe('*');
    expect(sandboxed.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('the session cookie', () => {
  it('over https: __Host- prefixed, Secure, Path=/, no Domain; the login works with it', async () => {
    const storage = new MemoryDriver();
    const app = makeApp({ idp: true }, storage);
    const https = (path: string, init?: RequestInit) => app.app.fetch(new Request('https://pod.test' + path, init));
    expect((await https('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const shown = await https('/idp/auth');
    const [csrfCookie] = shown.headers.getSetCookie();
    expect(csrfCookie).toMatch(/^__Host-svc_idp_csrf=[^;]+; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    let cookies = cookiesFrom(shown);
    const csrf = hiddenField(await shown.text(), 'csrf');
    const login = await https('/idp/auth', form({ csrf, email: 'alice@example.org', password: PASSWORD }, { cookie: cookies, origin: 'https://pod.test' }));
    expect(login.status).toBe(303);
    const [session] = login.headers.getSetCookie();
    expect(session).toMatch(/^__Host-svc_idp_session=[^;]+; Path=\/; Secure; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    cookies = cookiesFrom(login, cookies);
    expect((await https('/idp/account', { headers: { cookie: cookies } })).status).toBe(200);
    // The same value under the plain name (as a sibling host could set it) is no session.
    expect((await https('/idp/account', { headers: { cookie: cookies.replaceAll('__Host-', '') } })).status).toBe(303);
  });

  it('over http (development): the plain name, scoped to /idp/', async () => {
    const app = await idpApp();
    const [csrfCookie] = (await app.request('/idp/auth')).headers.getSetCookie();
    expect(csrfCookie).toMatch(/^svc_idp_csrf=[^;]+; Path=\/idp\/; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
  });

  it('never authenticates a pod resource', async () => {
    const app = await idpApp();
    const shown = await app.request('/idp/auth');
    let cookies = cookiesFrom(shown);
    const login = await app.request('/idp/auth', form({ csrf: hiddenField(await shown.text(), 'csrf'), email: 'alice@example.org', password: PASSWORD }, { cookie: cookies }));
    cookies = cookiesFrom(login, cookies);
    expect((await app.request('/alice/private/', { headers: { cookie: cookies } })).status).toBe(401);
  });
});

describe('pages that hold the CSRF value', () => {
  it('are served to a navigation, refused to a script (Sec-Fetch-Dest)', async () => {
    const app = await idpApp();
    expect((await app.request('/idp/auth', { headers: { 'sec-fetch-dest': 'document', 'sec-fetch-mode': 'navigate' } })).status).toBe(200);
    const fetched = await app.request('/idp/auth', { headers: { 'sec-fetch-dest': 'empty', 'sec-fetch-mode': 'cors' } });
    expect(fetched.status).toBe(403);
    expect(await fetched.text()).not.toContain('csrf');
    expect((await app.request('/idp/register', { headers: { 'sec-fetch-dest': 'empty' } })).status).toBe(403);
  });
});

describe('OAuth clients on the server', () => {
  const query = (fields: Record<string, string>) => `/oauth/authorize?${new URLSearchParams({ response_type: 'token', scope: 'read', ...fields })}`;

  it('refuses a client_id or redirect_uri on the server origin, and lets an app of its own origin through', async () => {
    const app = await idpApp();
    const own = await app.request(query({ client_id: BASE, redirect_uri: `${BASE}/alice/public/page.html` }), { headers: { accept: 'text/html' } });
    expect(own.status).toBe(400);
    expect(own.headers.get('location')).toBeNull();
    expect(await own.text()).toContain('is on this server');
    const registered = await (await app.request('/api/v1/apps', json({ client_name: 'Pod page', redirect_uris: `${BASE}/alice/public/page.html`, scopes: 'read' }))).json();
    const toPod = await app.request(query({ client_id: registered.client_id, redirect_uri: `${BASE}/alice/public/page.html` }));
    expect(toPod.status).toBe(400);
    expect((await toPod.json()).error).toBe('invalid_redirect_uri');
    const elsewhere = await app.request(query({ client_id: 'https://app.example', redirect_uri: 'https://app.example/' }));
    expect(elsewhere.status).toBe(303);
  });

  it('in subdomain mode refuses the base domain and every pod host', async () => {
    const app = makeApp({ idp: true, subdomains: true, baseDomain: 'pods.test' });
    const send = (url: string, init?: RequestInit) => app.app.fetch(new Request(url, init));
    expect((await send('http://pods.test/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    for (const origin of ['http://alice.pods.test', 'http://nobody-yet.pods.test', 'http://pods.test']) {
      const refused = await send(`http://pods.test${query({ client_id: origin, redirect_uri: `${origin}/x.html` })}`);
      expect(refused.status, origin).toBe(400);
      expect((await refused.json()).error, origin).toBe('invalid_client');
    }
    expect((await send(`http://pods.test${query({ client_id: 'http://app.test', redirect_uri: 'http://app.test/' })}`)).status).toBe(303);
  });
});

describe('stored content in subdomain mode', () => {
  it("a pod's own pages run with its origin; pages anyone may post, and the base domain's answers, are sandboxed", async () => {
    const app = makeApp({ idp: true, subdomains: true, baseDomain: 'pods.test' });
    const send = (url: string, init?: RequestInit) => app.app.fetch(new Request(url, init));
    expect((await send('http://pods.test/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const token = (await (await send('http://pods.test/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }))).json()).access_token;
    const auth = { authorization: `Bearer ${token}` };
    expect((await send('http://alice.pods.test/public/app.html', { method: 'PUT', headers: { ...auth, 'content-type': 'text/html' }, body: PAGE })).status).toBe(201);
    const guestbookAcl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>. @prefix foaf: <http://xmlns.com/foaf/0.1/>.
<#owner> a acl:Authorization; acl:agent <http://alice.pods.test/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:mode acl:Read, acl:Append.
<#readers> a acl:Authorization; acl:agentClass foaf:Agent; acl:default <./>; acl:mode acl:Read.`;
    expect((await send('http://alice.pods.test/guestbook/.acl', { method: 'PUT', headers: { ...auth, 'content-type': 'text/turtle' }, body: guestbookAcl })).status).toBe(201);
    const posted = await send('http://alice.pods.test/guestbook/', { method: 'POST', headers: { 'content-type': 'text/html' }, body: PAGE });
    expect(posted.status).toBe(201);

    const own = await send('http://alice.pods.test/public/app.html');
    expect(own.headers.get('content-security-policy')).toBeNull();
    expect(own.headers.get('x-content-type-options')).toBe('nosniff');
    const anonymous = await send(new URL(posted.headers.get('location')!, 'http://alice.pods.test/guestbook/').href);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-security-policy')).toBe(SANDBOX);
    const base = await send('http://pods.test/alice/public/app.html');
    expect(base.headers.get('content-security-policy')).toBe(SANDBOX);
  });
});
