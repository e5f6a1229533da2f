import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, makeApp } from '../support/app.ts';
import { podWorld } from '../wac/pods.ts';

const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('POST /.pods', () => {
  it('creates a pod: 201, Location, name, webId, podUri and token', async () => {
    const { request } = makeApp({ public: false });
    const response = await request('/.pods', json({ name: 'alice' }));
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${BASE}/alice/`);
    const body = await response.json();
    expect(body).toEqual({ name: 'alice', webId: `${BASE}/alice/#me`, podUri: `${BASE}/alice/`, token: expect.any(String) });
  });

  it.each([
    ['upper case', { name: 'Alice' }, 400],
    ['empty', { name: '' }, 400],
    ['too long', { name: 'a'.repeat(64) }, 400],
    ['a slash', { name: 'a/b' }, 400],
    ['a dot', { name: '.well-known' }, 400],
    ['reserved', { name: 'idp' }, 400],
    ['no name', {}, 400],
    ['not an object', ['alice'], 400],
  ])('refuses a name that is %s with %i', async (_what, body, status) => {
    const { request } = makeApp({ public: false });
    expect((await request('/.pods', json(body))).status).toBe(status);
  });

  it('accepts the longest valid name', async () => {
    const { request } = makeApp({ public: false });
    expect((await request('/.pods', json({ name: 'a-_9'.repeat(15) + 'abc' }))).status).toBe(201);
  });

  it('refuses malformed JSON with 400 and other content types with 415', async () => {
    const { request } = makeApp({ public: false });
    expect((await request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":' })).status).toBe(400);
    expect((await request('/.pods', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"name":"alice"}' })).status).toBe(415);
    expect((await request('/.pods', { method: 'POST', body: '{"name":"alice"}' })).status).toBe(415);
  });

  it('answers 409 for a taken name, with exactly one winner among concurrent requests', async () => {
    const { request } = makeApp({ public: false });
    const statuses = await Promise.all(Array.from({ length: 5 }, () => request('/.pods', json({ name: 'alice' })).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(4);
    const again = await request('/.pods', json({ name: 'alice' }));
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect((await again.json()).detail).toContain('a fresh token for it comes from `svc token alice`');
  });

  it('is refused with 405 under --read-only', async () => {
    const { request } = makeApp({ public: false, readOnly: true });
    expect((await request('/.pods', json({ name: 'alice' }))).status).toBe(405);
  });

  it('leaves nothing behind when a write fails part way, and the name stays available', async () => {
    const inner = new MemoryDriver();
    let failOn: string | null = '/alice/settings/prefs';
    const flaky: StorageDriver = Object.assign(Object.create(inner) as StorageDriver, {
      put: (path: string, ...rest: Parameters<StorageDriver['put']> extends [string, ...infer R] ? R : never) => {
        if (path === failOn) return Promise.reject(new Error('disk full'));
        return inner.put(path, ...rest);
      },
    });
    const { request } = makeApp({ public: false }, flaky);
    expect((await request('/.pods', json({ name: 'alice' }))).status).toBe(500);
    expect(await inner.head('/alice/')).toBeNull();
    expect(await inner.head('/alice/.acl')).toBeNull();
    expect(await inner.head('/.server/pods/alice.json')).toBeNull();
    failOn = null;
    expect((await request('/.pods', json({ name: 'alice' }))).status).toBe(201);
  });
});

describe('pod layout', () => {
  it('gives the public the profile, public/ and inbox append; the owner everything', async () => {
    const w = await podWorld(['alice']);
    expect((await w.as(null, '/alice/')).status).toBe(200);
    expect((await w.as(null, '/alice/index.html')).status).toBe(200);
    expect((await w.as(null, '/alice/public/')).status).toBe(200);
    expect((await w.as(null, '/alice/settings/publicTypeIndex')).status).toBe(200);
    for (const path of ['/alice/private/', '/alice/settings/', '/alice/settings/prefs', '/alice/settings/privateTypeIndex', '/alice/inbox/', '/alice/.acl']) {
      expect([path, (await w.as(null, path)).status]).toEqual([path, 401]);
      expect([path, (await w.as('alice', path)).status]).toEqual([path, 200]);
    }
    expect((await w.as(null, '/alice/new-thing')).status).toBe(401);
    expect((await w.as('alice', '/alice/new-thing')).status).toBe(404);
    expect((await w.as(null, '/alice/inbox/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' })).status).toBe(201);
    expect((await w.as(null, '/alice/public/x', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(401);
  });

  it('serves the profile at the pod root only to those who may read index.html itself', async () => {
    const w = await podWorld(['alice']);
    const ownerOnly = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#owner> a acl:Authorization; acl:agent <./#me>; acl:accessTo <./index.html>; acl:mode acl:Read, acl:Write, acl:Control.\n';
    const put = await w.as('alice', '/alice/index.html.acl', { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: ownerOnly });
    expect(put.ok).toBe(true);
    expect((await w.as(null, '/alice/index.html')).status).toBe(401);
    // Anonymous callers get the plain listing: no page, and no profile graph from its JSON-LD island.
    expect((await w.as(null, '/alice/', { headers: { accept: 'text/html' } })).status).toBe(406);
    const listing = await w.as(null, '/alice/');
    expect(listing.status).toBe(200);
    expect(await listing.text()).not.toContain('#me');
    expect(await (await w.as('alice', '/alice/', { headers: { accept: 'text/html' } })).text()).toContain('<html');
    expect(await (await w.as('alice', '/alice/')).text()).toContain('#me');
  });

  it('writes ACLs and documents with relative IRIs only', async () => {
    const w = await podWorld(['alice']);
    for (const path of ['/alice/.acl', '/alice/index.html', '/alice/inbox/.acl', '/alice/settings/prefs', '/alice/settings/publicTypeIndex.acl']) {
      const stored = await w.storage.get(path);
      expect(await new Response(stored!.body).text()).not.toContain('pod.test');
    }
  });

  it('makes the pod root a storage that cannot be deleted, also after a restart', async () => {
    const w = await podWorld(['alice']);
    const head = await w.as('alice', '/alice/', { method: 'HEAD' });
    expect(head.headers.get('link')).toContain('<http://www.w3.org/ns/pim/space#Storage>; rel="type"');
    expect((await w.as('alice', '/alice/', { method: 'DELETE' })).status).toBe(405);
    const restarted = makeApp({ public: false }, w.storage);
    const again = await restarted.request('/alice/', { method: 'DELETE', headers: { authorization: `Bearer ${w.tokens.alice}` } });
    expect(again.status).toBe(405);
  });
});

describe('GET of a pod root', () => {
  it('serves the profile page to clients that prefer HTML', async () => {
    const w = await podWorld(['alice']);
    const response = await w.as(null, '/alice/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await response.text()).toContain('<script type="application/ld+json">');
  });

  it('serves the profile graph with the listing as RDF, so <pod>/#me dereferences', async () => {
    const w = await podWorld(['alice']);
    const response = await w.as(null, '/alice/');
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    const quads = await parseRdf(await response.text(), 'application/ld+json', `${BASE}/alice/`);
    const has = (s: string, p: string, o: string) => quads.some((q) => q.subject.value === s && q.predicate.value === p && q.object.value === o);
    const me = `${BASE}/alice/#me`;
    expect(has(me, 'http://www.w3.org/ns/solid/terms#storage', `${BASE}/alice/`)).toBe(true);
    expect(has(me, 'http://www.w3.org/ns/pim/space#storage', `${BASE}/alice/`)).toBe(true);
    expect(has(me, 'http://www.w3.org/ns/ldp#inbox', `${BASE}/alice/inbox/`)).toBe(true);
    expect(has(me, 'http://www.w3.org/ns/pim/space#preferencesFile', `${BASE}/alice/settings/prefs`)).toBe(true);
    expect(has(me, 'http://www.w3.org/ns/solid/terms#publicTypeIndex', `${BASE}/alice/settings/publicTypeIndex`)).toBe(true);
    expect(has(`${BASE}/alice/`, 'http://www.w3.org/ns/ldp#contains', `${BASE}/alice/inbox/`)).toBe(true);
  });
});
