import { describe, expect, it } from 'vitest';
import { BASE, makeApp, type TestApp } from '../support/app.ts';

interface World extends TestApp {
  alice: string;
  bob: string;
  /** A request with alice's pod token. */
  asAlice(path: string, init?: RequestInit): Promise<Response>;
}

async function podToken(test: TestApp, name: string): Promise<string> {
  const created = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(created.status).toBe(201);
  return ((await created.json()) as { token: string }).token;
}

async function world(flags: Record<string, unknown> = {}): Promise<World> {
  const test = makeApp(flags);
  const alice = await podToken(test, 'alice');
  const bob = await podToken(test, 'bob');
  const asAlice = (path: string, init: RequestInit = {}) => test.request(path, { ...init, headers: { Authorization: `Bearer ${alice}`, ...init.headers } });
  return { ...test, alice, bob, asAlice };
}

const put = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'PUT', body, headers: { 'Content-Type': 'text/plain', ...headers } });

interface Listing {
  '@context': string;
  items: Record<string, { ETag: string; 'Content-Type'?: string; 'Content-Length'?: number; 'Last-Modified'?: string }>;
}

const unquoted = (etag: string | null) => etag!.replace(/^"|"$/g, '');

describe('remoteStorage documents', () => {
  it('PUT creates a document and its folders, GET and HEAD read it with its metadata, a second PUT replaces it', async () => {
    const { asAlice } = await world();
    const created = await asAlice('/storage/alice/notes/2026/today.txt', put('hello'));
    expect(created.status).toBe(201);
    const firstTag = created.headers.get('etag');
    expect(firstTag).toMatch(/^"[^"]+"$/);

    const read = await asAlice('/storage/alice/notes/2026/today.txt');
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(firstTag);
    expect(read.headers.get('content-type')).toBe('text/plain');
    expect(read.headers.get('content-length')).toBe('5');
    expect(read.headers.get('cache-control')).toBe('no-cache');
    expect(await read.text()).toBe('hello');

    const head = await asAlice('/storage/alice/notes/2026/today.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBe(firstTag);
    expect(head.headers.get('content-length')).toBe('5');
    expect(await head.text()).toBe('');

    const replaced = await asAlice('/storage/alice/notes/2026/today.txt', put('{"a":1}', { 'Content-Type': 'application/json; charset=UTF-8' }));
    expect(replaced.status).toBe(200);
    expect(replaced.headers.get('etag')).not.toBe(firstTag);
    const again = await asAlice('/storage/alice/notes/2026/today.txt');
    expect(again.headers.get('content-type')).toBe('application/json; charset=UTF-8');
    expect(again.headers.get('etag')).toBe(replaced.headers.get('etag'));
    expect(await again.text()).toBe('{"a":1}');
  });

  it('keeps documents in the pod container remotestorage/, so LDP reads what remoteStorage wrote and the other way round', async () => {
    const { asAlice } = await world();
    const written = await asAlice('/storage/alice/photos/cat.txt', put('meow'));
    const viaLdp = await asAlice('/alice/remotestorage/photos/cat.txt');
    expect(viaLdp.status).toBe(200);
    expect(viaLdp.headers.get('etag')).toBe(written.headers.get('etag'));
    expect(await viaLdp.text()).toBe('meow');

    expect((await asAlice('/alice/remotestorage/photos/dog.txt', put('woof'))).status).toBe(201);
    const viaRs = await asAlice('/storage/alice/photos/dog.txt');
    expect(viaRs.status).toBe(200);
    expect(await viaRs.text()).toBe('woof');
    const listing = (await (await asAlice('/storage/alice/photos/')).json()) as Listing;
    expect(Object.keys(listing.items).sort()).toEqual(['cat.txt', 'dog.txt']);
  });

  it('answers 404 for a document that does not exist, without an ETag', async () => {
    const { asAlice } = await world();
    for (const method of ['GET', 'HEAD', 'DELETE']) {
      const response = await asAlice('/storage/alice/nothing/here', { method });
      expect(response.status).toBe(404);
      expect(response.headers.get('etag')).toBeNull();
    }
  });

  it('DELETE answers the deleted version and removes the folders it leaves empty, but not the others', async () => {
    const { asAlice, storage } = await world();
    await asAlice('/storage/alice/a/keep.txt', put('keep'));
    const doomed = await asAlice('/storage/alice/a/b/c/gone.txt', put('gone'));
    const deleted = await asAlice('/storage/alice/a/b/c/gone.txt', { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(deleted.headers.get('etag')).toBe(doomed.headers.get('etag'));
    expect((await asAlice('/storage/alice/a/b/c/gone.txt')).status).toBe(404);
    expect(await storage.head('/alice/remotestorage/a/b/c/')).toBeNull();
    expect(await storage.head('/alice/remotestorage/a/b/')).toBeNull();
    expect(await storage.head('/alice/remotestorage/a/')).not.toBeNull();
    const listing = (await (await asAlice('/storage/alice/a/')).json()) as Listing;
    expect(Object.keys(listing.items)).toEqual(['keep.txt']);
  });
});

describe('remoteStorage folders', () => {
  it('lists documents with their metadata and non-empty folders by name/ with their ETag', async () => {
    const { asAlice } = await world();
    const doc = await asAlice('/storage/alice/drinks/coffee', put('{"name":"coffee"}', { 'Content-Type': 'application/json' }));
    await asAlice('/storage/alice/drinks/hot/tea', put('tea'));
    const response = await asAlice('/storage/alice/drinks/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const listing = (await response.json()) as Listing;
    expect(listing['@context']).toBe('http://remotestorage.io/spec/folder-description');
    const hot = await asAlice('/storage/alice/drinks/hot/');
    expect(listing.items).toEqual({
      coffee: {
        ETag: unquoted(doc.headers.get('etag')),
        'Content-Type': 'application/json',
        'Content-Length': 17,
        'Last-Modified': expect.stringMatching(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/),
      },
      'hot/': { ETag: unquoted(hot.headers.get('etag')) },
    });
    expect(Number(response.headers.get('content-length'))).toBe(new TextEncoder().encode(JSON.stringify(listing)).byteLength);
    const head = await asAlice('/storage/alice/drinks/', { method: 'HEAD' });
    expect(head.headers.get('etag')).toBe(response.headers.get('etag'));
    expect(await head.text()).toBe('');
  });

  it('changes the ETag of every folder above a changed document, and only those', async () => {
    const { asAlice } = await world();
    await asAlice('/storage/alice/x/y/z/doc', put('1'));
    await asAlice('/storage/alice/other/doc', put('1'));
    const tags = async () =>
      Object.fromEntries(await Promise.all(['/', '/x/', '/x/y/', '/x/y/z/', '/other/'].map(async (folder) => [folder, (await asAlice(`/storage/alice${folder}`)).headers.get('etag')])));
    const before = await tags();
    await asAlice('/storage/alice/x/y/z/doc', put('2'));
    const afterUpdate = await tags();
    for (const folder of ['/', '/x/', '/x/y/', '/x/y/z/']) expect(afterUpdate[folder]).not.toBe(before[folder]);
    expect(afterUpdate['/other/']).toBe(before['/other/']);

    await asAlice('/storage/alice/x/y/new', put('3'));
    const afterCreate = await tags();
    for (const folder of ['/', '/x/', '/x/y/']) expect(afterCreate[folder]).not.toBe(afterUpdate[folder]);
    expect(afterCreate['/x/y/z/']).toBe(afterUpdate['/x/y/z/']);

    await asAlice('/storage/alice/x/y/new', { method: 'DELETE' });
    const afterDelete = await tags();
    expect(afterDelete['/x/y/']).toBe(afterUpdate['/x/y/']);
    expect(afterDelete['/']).toBe(afterUpdate['/']);
  });

  it('describes an empty or missing folder with no items and leaves empty folders out of their parent', async () => {
    const { asAlice } = await world();
    const missing = await asAlice('/storage/alice/never/');
    expect(missing.status).toBe(200);
    expect(missing.headers.get('etag')).toMatch(/^"[^"]+"$/);
    expect(((await missing.json()) as Listing).items).toEqual({});

    // An empty container made through LDP is an empty folder to remoteStorage.
    await asAlice('/storage/alice/full/doc', put('x'));
    expect((await asAlice('/alice/remotestorage/empty/', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(201);
    const root = (await (await asAlice('/storage/alice/')).json()) as Listing;
    expect(Object.keys(root.items)).toEqual(['full/']);
  });

  it('leaves ACL documents out of listings and refuses them as documents', async () => {
    const { asAlice } = await world();
    await asAlice('/storage/alice/shared/doc', put('x'));
    const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#owner> a acl:Authorization; acl:agent <${BASE}/alice/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.`;
    expect((await asAlice('/alice/remotestorage/shared/.acl', { method: 'PUT', body: acl, headers: { 'Content-Type': 'text/turtle' } })).status).toBe(201);
    const listing = (await (await asAlice('/storage/alice/shared/')).json()) as Listing;
    expect(Object.keys(listing.items)).toEqual(['doc']);
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const response = await asAlice('/storage/alice/shared/.acl', method === 'PUT' ? put('x') : { method });
      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    // A folder the owner gave access rules keeps them when its last document goes.
    await asAlice('/storage/alice/shared/doc', { method: 'DELETE' });
    expect((await asAlice('/alice/remotestorage/shared/.acl')).status).toBe(200);
  });
});

describe('remoteStorage conditional requests', () => {
  it('PUT with If-Match or If-None-Match: * writes only when the precondition holds', async () => {
    const { asAlice } = await world();
    const path = '/storage/alice/c/doc';
    expect((await asAlice(path, put('x', { 'If-Match': '"nope"' }))).status).toBe(412);
    const created = await asAlice(path, put('v1', { 'If-None-Match': '*' }));
    expect(created.status).toBe(201);
    const v1 = created.headers.get('etag')!;
    const clash = await asAlice(path, put('again', { 'If-None-Match': '*' }));
    expect(clash.status).toBe(412);
    expect(clash.headers.get('content-type')).toBe('application/problem+json');
    expect((await asAlice(path, put('v2', { 'If-Match': '"stale"' }))).status).toBe(412);
    expect(await (await asAlice(path)).text()).toBe('v1');
    const updated = await asAlice(path, put('v2', { 'If-Match': v1 }));
    expect(updated.status).toBe(200);
    expect((await asAlice(path, put('v3', { 'If-Match': v1 }))).status).toBe(412);
    expect(await (await asAlice(path)).text()).toBe('v2');
  });

  it('DELETE with If-Match deletes only the version named', async () => {
    const { asAlice } = await world();
    const path = '/storage/alice/c/doc';
    const { headers } = await asAlice(path, put('v1'));
    expect((await asAlice(path, { method: 'DELETE', headers: { 'If-Match': '"old"' } })).status).toBe(412);
    expect(await (await asAlice(path)).text()).toBe('v1');
    expect((await asAlice(path, { method: 'DELETE', headers: { 'If-Match': headers.get('etag')! } })).status).toBe(200);
    // A document that is not there: 412 with If-Match (as for PUT), 404 without.
    expect((await asAlice(path, { method: 'DELETE', headers: { 'If-Match': headers.get('etag')! } })).status).toBe(412);
    expect((await asAlice('/storage/alice/c/never', { method: 'DELETE', headers: { 'If-Match': '*' } })).status).toBe(412);
    expect((await asAlice(path, { method: 'DELETE' })).status).toBe(404);
  });

  it('GET with If-None-Match answers 304 for a current document or folder and 200 otherwise', async () => {
    const { asAlice } = await world();
    const { headers } = await asAlice('/storage/alice/c/doc', put('x'));
    const etag = headers.get('etag')!;
    const notModified = await asAlice('/storage/alice/c/doc', { headers: { 'If-None-Match': `"other", ${etag}` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await asAlice('/storage/alice/c/doc', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
    const folderTag = (await asAlice('/storage/alice/c/')).headers.get('etag')!;
    expect((await asAlice('/storage/alice/c/', { headers: { 'If-None-Match': folderTag } })).status).toBe(304);
    await asAlice('/storage/alice/c/doc', put('y'));
    expect((await asAlice('/storage/alice/c/', { headers: { 'If-None-Match': folderTag } })).status).toBe(200);
  });
});

describe('remoteStorage access', () => {
  it('answers 401 with a Bearer challenge to requests without a token, except reads of public documents', async () => {
    const { asAlice, request } = await world();
    await asAlice('/storage/alice/public/shared/photo.txt', put('for everyone'));
    await asAlice('/storage/alice/private/secret.txt', put('for me'));

    const publicDocument = await request('/storage/alice/public/shared/photo.txt');
    expect(publicDocument.status).toBe(200);
    expect(await publicDocument.text()).toBe('for everyone');
    expect((await request('/storage/alice/public/shared/photo.txt', { method: 'HEAD' })).status).toBe(200);
    expect((await request('/storage/alice/public/missing.txt')).status).toBe(404);

    const refused: [string, RequestInit][] = [
      ['/storage/alice/public/', {}],
      ['/storage/alice/public/shared/', {}],
      ['/storage/alice/private/secret.txt', {}],
      ['/storage/alice/', {}],
      ['/storage/alice/public/shared/photo.txt', put('changed')],
      ['/storage/alice/public/shared/photo.txt', { method: 'DELETE' }],
    ];
    for (const [path, init] of refused) {
      const response = await request(path, init);
      expect(response.status, `${init.method ?? 'GET'} ${path}`).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
    }
    const badToken = await request('/storage/alice/private/secret.txt', { headers: { Authorization: 'Bearer not-a-token' } });
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await (await asAlice('/storage/alice/public/shared/photo.txt')).text()).toBe('for everyone');
  });

  it('answers 403 to another user, whose WebID the pod ACLs do not allow, and writes nothing', async () => {
    const { asAlice, request, bob } = await world();
    await asAlice('/storage/alice/notes/a', put('mine'));
    const asBob = (path: string, init: RequestInit = {}) => request(path, { ...init, headers: { Authorization: `Bearer ${bob}`, ...init.headers } });
    expect((await asBob('/storage/alice/notes/a')).status).toBe(403);
    expect((await asBob('/storage/alice/notes/')).status).toBe(403);
    expect((await asBob('/storage/alice/notes/a', put('yours'))).status).toBe(403);
    expect((await asBob('/storage/alice/notes/a', { method: 'DELETE' })).status).toBe(403);
    expect(await (await asAlice('/storage/alice/notes/a')).text()).toBe('mine');
    expect((await asBob('/storage/bob/notes/b', put('bob'))).status).toBe(201);
  });

  it('leaves URLs that name no user of this server to the LDP route', async () => {
    const { asAlice, storage } = await world();
    const read = await asAlice('/storage/nobody/x');
    expect(read.status).toBe(403);
    expect((await asAlice('/storage/nobody/x', put('x'))).status).toBe(403);
    expect(await storage.head('/storage/')).toBeNull();
  });
});

describe('remoteStorage bad requests', () => {
  it('refuses writes to folders (405), name clashes (409), missing types (400), bad names (400), big bodies (413) and encoded bodies (415)', async () => {
    const { asAlice, storage } = await world({ maxBodySize: '1KB' });
    await asAlice('/storage/alice/a/doc', put('x'));
    const folderPut = await asAlice('/storage/alice/a/', put('x'));
    expect(folderPut.status).toBe(405);
    expect(folderPut.headers.get('allow')).toBe('OPTIONS, GET, HEAD');
    expect((await asAlice('/storage/alice/a/', { method: 'DELETE' })).status).toBe(405);
    expect((await asAlice('/storage/alice/a/doc', { method: 'POST', body: 'x' })).status).toBe(405);
    expect((await asAlice('/storage/alice/a/doc/inner', put('x'))).status).toBe(409);
    expect((await asAlice('/storage/alice/a', put('x'))).status).toBe(409);
    expect((await asAlice('/storage/alice/a/typeless', { method: 'PUT', body: new TextEncoder().encode('x') })).status).toBe(400);
    expect((await asAlice('/storage/alice/a/%2Fslash', put('x'))).status).toBe(400);
    expect((await asAlice('/storage/alice/a/big', put('x'.repeat(2048)))).status).toBe(413);
    const gzipped = await asAlice('/storage/alice/a/gz', { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' } });
    expect(gzipped.status).toBe(415);
    expect(gzipped.headers.get('accept-encoding')).toBe('identity');
    for (const path of ['/alice/remotestorage/a/typeless', '/alice/remotestorage/a/big', '/alice/remotestorage/a/doc/inner', '/alice/remotestorage/a/gz']) expect(await storage.head(path)).toBeNull();
    expect(await (await asAlice('/storage/alice/a/doc')).text()).toBe('x');
  });

  it('refuses writes on a read-only server (405) and past the pod quota (507)', async () => {
    const { alice, storage } = await world();
    await makeApp({}, storage).request('/storage/alice/a/doc', { ...put('x'), headers: { Authorization: `Bearer ${alice}`, 'Content-Type': 'text/plain' } });
    const readOnly = makeApp({ readOnly: true }, storage);
    const auth = { Authorization: `Bearer ${alice}` };
    const refused = await readOnly.request('/storage/alice/a/doc', { ...put('y'), headers: { ...auth, 'Content-Type': 'text/plain' } });
    expect(refused.status).toBe(405);
    expect((await readOnly.request('/storage/alice/a/doc', { method: 'DELETE', headers: auth })).status).toBe(405);
    expect(await (await readOnly.request('/storage/alice/a/doc', { headers: auth })).text()).toBe('x');

    const quota = await world({ defaultQuota: '8KB' });
    expect((await quota.asAlice('/storage/alice/a/huge', put('x'.repeat(9000)))).status).toBe(507);
    expect(await quota.storage.head('/alice/remotestorage/a/huge')).toBeNull();
  });
});

describe('remoteStorage CORS', () => {
  it('answers preflights with the methods and headers the draft lists, and exposes ETag to browser apps', async () => {
    const { request, asAlice } = await world();
    const origin = 'https://drinks.example';
    const preflight = await request('/storage/alice/myfavoritedrinks/', {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'Authorization, Content-Type, If-Match, If-None-Match, X-Requested-With' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    const methods = preflight.headers.get('access-control-allow-methods')!;
    for (const method of ['GET', 'PUT', 'DELETE']) expect(methods).toContain(method);
    const allowed = preflight.headers.get('access-control-allow-headers')!.toLowerCase();
    for (const header of ['authorization', 'content-type', 'if-match', 'if-none-match', 'x-requested-with']) expect(allowed).toContain(header);

    const written = await asAlice('/storage/alice/myfavoritedrinks/tea', put('tea', { Origin: origin }));
    expect(written.headers.get('access-control-allow-origin')).toBe(origin);
    const exposed = written.headers.get('access-control-expose-headers')!;
    for (const header of ['ETag', 'Content-Type', 'Content-Length']) expect(exposed).toContain(header);
    const refused = await request('/storage/alice/myfavoritedrinks/tea', { headers: { Origin: origin } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
  });
});
