/**
 * Which clients get the data browser's wrapper page: browser navigations to RDF resources and containers
 * do; mashlib's own data fetches, `fetch`-style clients, non-RDF files and pod roots do not.
 */
import { describe, expect, it } from 'vitest';
import { STORED_CONTENT_POLICY } from '../../src/http/isolation.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { makeApp, type TestApp } from '../support/app.ts';
import { idpApp, json, PASSWORD } from '../idp/support.ts';

const NAVIGATION = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
// What mashlib 2.3.3's fetcher sends (its media types and their q-values).
const MASHLIB_FETCH = 'text/turtle;q=1,application/rdf+xml;q=0.9,application/ld+json;q=0.9,application/xhtml+xml;q=0.8,text/html;q=0.8,text/xml;q=0.5,application/xml;q=0.5,text/plain;q=0.5';
const DOC = '<#a> <http://example.org/p> "v" .';

/** The runtime's reader of mashlib's files; these tests look at pages, not at the files. */
const assets = { databrowserAsset: async () => null };

async function withData(flags: Record<string, unknown>): Promise<TestApp> {
  const test = makeApp({ public: true, conneg: true, ...flags }, undefined, assets);
  const put = await test.request('/data/doc.ttl', { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: DOC });
  expect(put.status).toBe(201);
  await test.request('/data/notes.txt', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'plain' });
  return test;
}

describe('--databrowser wrapper', () => {
  it('sends a browser navigation to an RDF resource or container the wrapper, with its policy', async () => {
    const { request } = await withData({ databrowser: true });
    for (const path of ['/data/doc.ttl', '/data/']) {
      const response = await request(path, { headers: { accept: NAVIGATION } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('etag')).toBeNull();
      const page = await response.text();
      expect(page).toContain('<script defer src="/.databrowser/mashlib.min.js"></script>');
      expect(page).not.toContain('svc-shell');
    }
  });

  it("answers the page whole to a browser revalidating the RDF it holds for that URL (never 304 with the RDF's validator)", async () => {
    const { request } = await withData({ databrowser: true });
    const rdf = await request('/data/doc.ttl', { headers: { accept: MASHLIB_FETCH } });
    const etag = rdf.headers.get('etag')!;
    expect((await request('/data/doc.ttl', { headers: { accept: MASHLIB_FETCH, 'if-none-match': etag } })).status).toBe(304);
    const page = await request('/data/doc.ttl', { headers: { accept: NAVIGATION, 'if-none-match': etag, 'if-modified-since': new Date().toUTCString() } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('mashlib.min.js');
  });

  it('keeps RDF for mashlib fetches, fetch-style clients and clients without Accept', async () => {
    const { request } = await withData({ databrowser: true });
    for (const accept of [MASHLIB_FETCH, '*/*', 'text/turtle', undefined]) {
      const response = await request('/data/doc.ttl', { headers: accept ? { accept } : {} });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/turtle/);
      // The stored document's sandbox, not the wrapper's policy.
      expect(response.headers.get('content-security-policy')).toBe(STORED_CONTENT_POLICY);
    }
    const listing = await request('/data/', { headers: { accept: MASHLIB_FETCH } });
    expect(listing.headers.get('content-type')).toMatch(/^text\/turtle/);
  });

  it('leaves non-RDF files and errors alone', async () => {
    const { request } = await withData({ databrowser: true });
    const file = await request('/data/notes.txt', { headers: { accept: NAVIGATION } });
    expect(await file.text()).toBe('plain');
    const missing = await request('/data/missing.ttl', { headers: { accept: NAVIGATION } });
    expect(missing.status).toBe(404);
  });

  it('is off without the option', async () => {
    const { request } = await withData({});
    const response = await request('/data/doc.ttl', { headers: { accept: NAVIGATION } });
    expect(response.headers.get('content-type')).not.toMatch(/^text\/html/);
  });

  it('refuses local mode on a runtime that cannot read the files, and serves its own scripts', async () => {
    expect(() => makeApp({ databrowser: true }, undefined, { databrowserAsset: undefined })).toThrow(/--databrowser-cdn/);
    const { request } = makeApp({ databrowser: true }, undefined, { databrowserAsset: async (name) => (name === 'mash.css' ? new TextEncoder().encode('body{}') : null) });
    expect(await (await request('/.databrowser/mash.css')).text()).toBe('body{}');
    expect((await request('/.databrowser/start.js')).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await request('/.databrowser/missing.js')).status).toBe(404);
    expect((await request('/.databrowser/..%2Fpackage.json')).status).toBe(404);
  });

  it('loads mashlib from the CDN at --databrowser-version, and refuses an odd version', async () => {
    const { request } = await withData({ databrowserCdn: true, databrowserVersion: '2.1.0' });
    const response = await request('/data/doc.ttl', { headers: { accept: NAVIGATION } });
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self' https://cdn.jsdelivr.net");
    expect(await response.text()).toContain('src="https://cdn.jsdelivr.net/npm/mashlib@2.1.0/dist/mashlib.min.js"');
    expect(() => makeApp({ databrowserCdn: true, databrowserVersion: '2"><script>' })).toThrow(ConfigError);
  });

  it('loads a module browser and its stylesheet, with --conneg on', async () => {
    const { request, config } = await withData({ conneg: false, databrowserModule: 'https://browser.example/app/browser.js' });
    expect(config.conneg).toBe(true);
    const response = await request('/data/', { headers: { accept: NAVIGATION } });
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self' https://browser.example");
    const page = await response.text();
    expect(page).toContain('<script type="module" src="https://browser.example/app/browser.js"></script>');
    expect(page).toContain('<link rel="stylesheet" href="https://browser.example/app/browser.css">');
    expect(page).toContain('<div id="mashlib"></div>');
  });

  it('adds the UI shell with --ui-shell, and refuses it without the data browser', async () => {
    const { request } = await withData({ databrowser: true, uiShell: true });
    expect(await (await request('/data/', { headers: { accept: NAVIGATION } })).text()).toContain('<nav id="svc-shell"');
    expect(() => makeApp({ uiShell: true }, undefined, assets)).toThrow(/--ui-shell requires --databrowser/);
    expect(() => makeApp({ uiShell: true, databrowserModule: 'https://browser.example/b.js' })).toThrow(/--ui-shell requires --databrowser/);
    expect(() => makeApp({ databrowser: true, databrowserCdn: true }, undefined, assets)).toThrow(/give only one/);
  });
});

describe('a browser window the resource refuses (401, 403)', () => {
  const WINDOW = { accept: NAVIGATION, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

  async function withAccounts(flags: Record<string, unknown> = {}): Promise<TestApp & { bob: string }> {
    const test = await idpApp({ databrowser: true, conneg: true, ...flags }, assets);
    await test.request('/.pods', json({ name: 'bob', email: 'bob@example.org', password: PASSWORD }));
    const bob = (await (await test.request('/idp/credentials', json({ email: 'bob@example.org', password: PASSWORD }))).json()).access_token;
    return { ...test, bob };
  }

  it('gets the data browser with the status and challenge unchanged, and the login on the page', async () => {
    const { request } = await withAccounts();
    for (const headers of [WINDOW, { accept: NAVIGATION }] as Record<string, string>[]) {
      const response = await request('/alice/private/', { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(response.headers.get('cache-control')).toBe('no-store');
      const page = await response.text();
      expect(page).toContain('<script defer src="/.databrowser/mashlib.min.js"></script>');
      expect(page).toContain('<script defer src="/.databrowser/start.js" data-issuer="http://pod.test/"></script>');
      expect(page).toContain('<button type="button" id="svc-login">Log in</button>');
      expect(page).toContain('401 Unauthorized');
    }
    const head = await request('/alice/private/', { method: 'HEAD', headers: WINDOW });
    expect(head.status).toBe(401);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
  });

  it('keeps problem+json for apps, scripts, frames and curl', async () => {
    const { request } = await withAccounts();
    const clients: Record<string, string>[] = [
      { accept: MASHLIB_FETCH, 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' },
      { accept: NAVIGATION, 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
      { accept: '*/*' },
      {},
    ];
    for (const headers of clients) {
      const response = await request('/alice/private/', { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
  });

  it('answers 403 with the data browser to a window whose login may not read', async () => {
    const { request, bob } = await withAccounts();
    const response = await request('/alice/private/', { headers: { ...WINDOW, authorization: `Bearer ${bob}` } });
    expect(response.status).toBe(403);
    const page = await response.text();
    expect(page).toContain('id="OutlineView"');
    expect(page).toContain('403 Forbidden');
  });

  it('offers no login button without the identity provider: the data browser logs in elsewhere', async () => {
    const test = makeApp({ databrowser: true, conneg: true }, undefined, assets);
    const created = await (await test.request('/.pods', json({ name: 'carol' }))).json();
    expect(created.token).toBeTruthy();
    const response = await test.request('/carol/private/', { headers: WINDOW });
    expect(response.status).toBe(401);
    const page = await response.text();
    expect(page).toContain('id="svc-login-needed"');
    expect(page).not.toContain('id="svc-login"');
    expect(page).not.toContain('data-issuer');
  });
});

describe("the data browser's login", () => {
  it('comes back to a page of the server, outside every pod, that sends no referrer', async () => {
    const { request } = makeApp({ databrowser: true, idp: true }, undefined, assets);
    const response = await request('/.databrowser/callback?code=abc&state=def');
    expect(response.status).toBe(200);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    const page = await response.text();
    expect(page).toContain('<script defer src="/.databrowser/callback.js" data-issuer="http://pod.test/"></script>');
    expect((await request('/.databrowser/callback.js')).headers.get('content-type')).toMatch(/^text\/javascript/);
  });

  it('is known by a Client ID Document on each host, naming that host\'s callback', async () => {
    const { request } = makeApp({ databrowserCdn: true });
    const response = await request('/.databrowser/id');
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    expect(await response.json()).toMatchObject({
      client_id: 'http://pod.test/.databrowser/id',
      client_name: 'Data browser of pod.test',
      redirect_uris: ['http://pod.test/.databrowser/callback'],
      token_endpoint_auth_method: 'none',
    });
  });

  it('has no callback in module mode, whose data browser logs in on its own', async () => {
    const { request } = makeApp({ databrowserModule: 'https://browser.example/b.js' });
    expect((await request('/.databrowser/callback')).status).toBe(404);
    expect((await request('/.databrowser/id')).status).toBe(404);
  });
});

describe("mashlib's probe of an old server's password page", () => {
  const PROBE = '/account/password/change';

  it('sends a person to the account page with the identity provider, and answers 404 without it', async () => {
    const withIdp = makeApp({ databrowser: true, idp: true }, undefined, assets);
    const redirect = await withIdp.request(PROBE);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe('http://pod.test/idp/account');
    const without = await makeApp({ databrowser: true }, undefined, assets).request(PROBE);
    expect(without.status).toBe(404);
    expect(without.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('leaves a resource stored at that path to its pod', async () => {
    const { request } = makeApp({ databrowser: true, public: true }, undefined, assets);
    expect((await request(PROBE, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'mine' })).status).toBe(201);
    const response = await request(PROBE);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('mine');
  });
});
