/**
 * Which clients get the data browser's wrapper page: browser navigations to RDF resources and containers
 * do; mashlib's own data fetches, `fetch`-style clients, non-RDF files and pod roots do not.
 */
import { describe, expect, it } from 'vitest';
import { STORED_CONTENT_POLICY } from '../../src/http/isolation.ts';
import { ConfigError } from '../../src/config/resolve.ts';
import { makeApp, type TestApp } from '../support/app.ts';

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
