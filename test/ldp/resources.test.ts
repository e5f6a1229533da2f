import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { BASE, makeApp } from '../support/app.ts';
import { podWorld } from '../wac/pods.ts';

const text = (body: string, type = 'text/plain', headers: Record<string, string> = {}) => ({
  method: 'PUT',
  body,
  headers: { 'Content-Type': type, ...headers },
});

async function expectProblem(response: Response, status: number): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = (await response.json()) as Record<string, unknown>;
  expect(problem).toMatchObject({ status, title: expect.any(String), detail: expect.any(String), type: expect.any(String) });
  expect(JSON.stringify(problem)).not.toMatch(/at .*\.ts:\d+/);
  return problem;
}

/** Opens a public app over the memory driver and over a fresh fs driver, for behaviour no driver may change. */
const OPEN_EACH_DRIVER = [
  async () => makeApp({ public: true }),
  async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-race-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    return makeApp({ public: true }, await FsDriver.open(root));
  },
];

describe('PUT and GET', () => {
  it('creates with 201 and Location, replaces with 204, and reads back the exact type', async () => {
    const { request } = makeApp({ public: true });
    const created = await request('/a/note', text('hello'));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${BASE}/a/note`);
    const etag1 = created.headers.get('etag');
    expect(etag1).toMatch(/^"[^"]+"$/);

    const replaced = await request('/a/note', text('hello again'));
    expect(replaced.status).toBe(204);
    expect(replaced.headers.get('etag')).not.toBe(etag1);

    const read = await request('/a/note');
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('text/plain');
    expect(read.headers.get('etag')).toBe(replaced.headers.get('etag'));
    expect(read.headers.get('last-modified')).toBeTruthy();
    expect(await read.text()).toBe('hello again');
  });

  it('answers HEAD with the headers of GET and no body', async () => {
    const { request } = makeApp({ public: true });
    await request('/h/file.txt', text('12345'));
    const head = await request('/h/file.txt', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe('5');
    expect(head.headers.get('etag')).toBeTruthy();
    expect(await head.text()).toBe('');
  });

  it('creates missing intermediate containers', async () => {
    const { request } = makeApp({ public: true });
    expect((await request('/x/y/z/leaf', text('1'))).status).toBe(201);
    const listing = await (await request('/x/y/')).json();
    expect(JSON.stringify(listing)).toContain(`${BASE}/x/y/z/`);
  });

  it('requires a Content-Type', async () => {
    const { request, storage } = makeApp({ public: true });
    await expectProblem(await request('/a/b', { method: 'PUT', body: new Uint8Array([1, 2]) }), 400);
    expect(await storage.head('/a/b')).toBeNull();
  });

  it('refuses malformed JSON-LD and stores nothing', async () => {
    const { request, storage } = makeApp({ public: true });
    await expectProblem(await request('/j/doc', text('{"@id": ', 'application/ld+json')), 400);
    await expectProblem(await request('/j/doc', text('{"@context": 5}', 'application/ld+json')), 400);
    expect(await storage.head('/j/doc')).toBeNull();
    expect((await request('/j/doc', text('{"@id": "#it", "http://schema.org/name": "x"}', 'application/ld+json'))).status).toBe(201);
  });

  it('refuses a partial PUT (Content-Range) and keeps the resource whole', async () => {
    const { request } = makeApp({ public: true });
    await request('/part/file', text('hello'));
    await expectProblem(await request('/part/file', text('J', 'text/plain', { 'Content-Range': 'bytes 0-0/5' })), 400);
    expect(await (await request('/part/file')).text()).toBe('hello');
  });

  it('refuses PUT onto an existing container and name clashes between /x and /x/', async () => {
    const { request } = makeApp({ public: true });
    await request('/c/sub/item', text('1'));
    await expectProblem(await request('/c/sub/', { method: 'PUT' }), 409);
    await expectProblem(await request('/c/sub', text('clash')), 409);
    await request('/c/file', text('1'));
    await expectProblem(await request('/c/file/', { method: 'PUT' }), 409);
    await expectProblem(await request('/c/file/inner', text('2')), 409);
  });

  it('creates an empty container with PUT on a slash path', async () => {
    const { request } = makeApp({ public: true });
    const response = await request('/new/container/', { method: 'PUT' });
    expect(response.status).toBe(201);
    expect(response.headers.get('link')).toContain('BasicContainer');
  });
});

describe('POST', () => {
  it('creates a member with 201 and an absolute Location, honouring a free Slug', async () => {
    const { request } = makeApp({ public: true });
    const response = await request('/box/', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain', Slug: 'hello.txt' } });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${BASE}/box/hello.txt`);
    const again = await request('/box/', { method: 'POST', body: 'y', headers: { 'Content-Type': 'text/plain', Slug: 'hello.txt' } });
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).not.toBe(`${BASE}/box/hello.txt`);
    expect(await (await request('/box/hello.txt')).text()).toBe('x');
  });

  it('gives concurrent POSTs with the same Slug and a non-RDF body distinct names instead of a 409', async () => {
    for (const open of OPEN_EACH_DRIVER) {
      const { request } = await open();
      const post = (body: string) => request('/race/', { method: 'POST', body, headers: { 'Content-Type': 'text/plain', Slug: 'same.txt' } });
      const responses = await Promise.all(['a', 'b', 'c', 'd'].map(post));
      expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201]);
      const locations = new Set(responses.map((r) => r.headers.get('location')));
      expect(locations.size).toBe(4);
      expect(locations.has(`${BASE}/race/same.txt`)).toBe(true);
      const bodies = await Promise.all([...locations].map(async (location) => (await request(new URL(location!).pathname)).text()));
      expect(bodies.sort()).toEqual(['a', 'b', 'c', 'd']);
    }
  });

  it('ignores unsafe slugs', async () => {
    const { request } = makeApp({ public: true });
    for (const slug of ['../evil', 'a/b', '.acl', 'x.acl', '%00', 'a.svc-meta']) {
      const response = await request('/s/', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain', Slug: slug } });
      expect(response.status).toBe(201);
      const location = response.headers.get('location')!;
      expect(location.startsWith(`${BASE}/s/`)).toBe(true);
      expect(location.slice(`${BASE}/s/`.length)).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('ignores a Slug that would make the new URL longer than a request path may be', async () => {
    const { request } = makeApp({ public: true });
    const deep = '/' + Array.from({ length: 9 }, () => 'd'.repeat(220)).join('/') + '/';
    const response = await request(deep, { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain', Slug: 'n'.repeat(100) } });
    expect(response.status).toBe(201);
    const location = new URL(response.headers.get('location')!).pathname;
    expect(location.length).toBeLessThanOrEqual(2048);
    expect(await (await request(location)).text()).toBe('x');
  });

  it('creates a container when the Link type asks for one', async () => {
    const { request } = makeApp({ public: true });
    const response = await request('/p/', {
      method: 'POST',
      headers: { Slug: 'folder', Link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`${BASE}/p/folder/`);
    expect((await request('/p/folder/')).status).toBe(200);
  });

  it('stores nothing, not even the missing target container, when the body is refused', async () => {
    const { request, storage } = makeApp({ public: true, maxBodySize: '10B' });
    const post = (body: string, type: string) => request('/missing/deep/', { method: 'POST', body, headers: { 'Content-Type': type } });
    await expectProblem(await post('{"@id": ', 'application/ld+json'), 400);
    await expectProblem(await post('x'.repeat(20), 'text/plain'), 413);
    expect(await storage.head('/missing/')).toBeNull();
  });

  it('checks If-Match and If-None-Match against the container it posts to', async () => {
    const { request } = makeApp({ public: true });
    const etag = (await request('/cond/', { method: 'PUT' })).headers.get('etag')!;
    const post = (path: string, headers: Record<string, string>) =>
      request(path, { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain', ...headers } });
    await expectProblem(await post('/cond/', { 'If-None-Match': '*' }), 412);
    await expectProblem(await post('/cond/', { 'If-Match': '"stale"' }), 412);
    await expectProblem(await post('/absent/', { 'If-Match': '*' }), 412);
    expect((await post('/cond/', { 'If-Match': etag })).status).toBe(201);
    expect((await post('/absent/', { 'If-None-Match': '*' })).status).toBe(201);
  });

  it('creates a missing target container and refuses POST to a non-container', async () => {
    const { request } = makeApp({ public: true });
    expect((await request('/fresh/deep/', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } })).status).toBe(201);
    await request('/fresh/file', text('1'));
    const problem = await request('/fresh/file', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } });
    await expectProblem(problem, 405);
    expect(problem.headers.get('allow')).toContain('GET');
  });
});

describe('DELETE', () => {
  it('deletes resources and empty containers, refuses non-empty ones and the root', async () => {
    const { request } = makeApp({ public: true });
    await request('/d/sub/item', text('1'));
    await expectProblem(await request('/d/sub/', { method: 'DELETE' }), 409);
    expect((await request('/d/sub/item', { method: 'DELETE' })).status).toBe(204);
    await expectProblem(await request('/d/sub/item'), 404);
    await expectProblem(await request('/d/sub/item', { method: 'DELETE' }), 404);
    expect((await request('/d/sub/', { method: 'DELETE' })).status).toBe(204);
    await expectProblem(await request('/', { method: 'DELETE' }), 405);
  });

  it('answers the loser of two concurrent DELETEs without preconditions with 404, not 412', async () => {
    for (const open of OPEN_EACH_DRIVER) {
      const { request } = await open();
      for (let round = 0; round < 5; round++) {
        await request('/gone/r', text('x'));
        const responses = await Promise.all([request('/gone/r', { method: 'DELETE' }), request('/gone/r', { method: 'DELETE' })]);
        expect(responses.map((r) => r.status).sort()).toEqual([204, 404]);
        await expectProblem(responses.find((r) => r.status === 404)!, 404);
      }
    }
  });

  it('treats a container holding only its ACL as empty and removes the ACL with it', async () => {
    const { request, storage } = makeApp({ public: true });
    await request('/e/', { method: 'PUT' });
    const acl = '@prefix acl: <http://www.w3.org/ns/auth/acl#>. <#o> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:mode acl:Read.';
    expect((await request('/e/.acl', text(acl, 'text/turtle'))).status).toBe(201);
    expect((await request('/e/', { method: 'DELETE' })).status).toBe(204);
    expect(await storage.head('/e/.acl')).toBeNull();
  });
});

describe('conditional requests', () => {
  it('honours If-Match and If-None-Match on writes', async () => {
    const { request } = makeApp({ public: true });
    const created = await request('/k/r', text('v1', 'text/plain', { 'If-None-Match': '*' }));
    expect(created.status).toBe(201);
    const etag = created.headers.get('etag')!;
    await expectProblem(await request('/k/r', text('v1b', 'text/plain', { 'If-None-Match': '*' })), 412);
    await expectProblem(await request('/k/r', text('v2', 'text/plain', { 'If-Match': '"stale"' })), 412);
    await expectProblem(await request('/k/missing', text('v', 'text/plain', { 'If-Match': '*' })), 412);
    expect((await request('/k/r', text('v2', 'text/plain', { 'If-Match': etag }))).status).toBe(204);
    await expectProblem(await request('/k/r', { method: 'DELETE', headers: { 'If-Match': etag } }), 412);
    expect(await (await request('/k/r')).text()).toBe('v2');
  });

  it('honours If-None-Match on DELETE', async () => {
    const { request } = makeApp({ public: true });
    const etag = (await request('/k/d', text('x'))).headers.get('etag')!;
    await expectProblem(await request('/k/d', { method: 'DELETE', headers: { 'If-None-Match': etag } }), 412);
    await expectProblem(await request('/k/d', { method: 'DELETE', headers: { 'If-None-Match': '*' } }), 412);
    expect((await request('/k/d', { method: 'DELETE', headers: { 'If-None-Match': '"other"', 'If-Match': etag } })).status).toBe(204);
  });

  it('deletes a container that has an ACL with If-Match of its ETag, and keeps it on a stale one', async () => {
    // The fs driver, where removing the ACL file changes the directory's ETag.
    const root = await mkdtemp(join(tmpdir(), 'svc-delete-'));
    onTestFinished(() => rm(root, { recursive: true, force: true }));
    const { request } = makeApp({ public: true }, await FsDriver.open(root));
    expect((await request('/box/', { method: 'PUT' })).status).toBe(201);
    const acl = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#a> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:mode acl:Read.\n';
    expect((await request('/box/.acl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: acl })).status).toBe(201);
    const etag = (await request('/box/', { method: 'HEAD' })).headers.get('etag')!;
    await expectProblem(await request('/box/', { method: 'DELETE', headers: { 'If-Match': '"stale"' } }), 412);
    expect((await request('/box/.acl')).status).toBe(200);
    expect((await request('/box/', { method: 'DELETE', headers: { 'If-Match': etag } })).status).toBe(204);
    expect((await request('/box/')).status).toBe(404);
  });

  it('answers 304 to If-None-Match on GET and HEAD', async () => {
    const { request } = makeApp({ public: true });
    const etag = (await request('/k/r', text('v1'))).headers.get('etag')!;
    const notModified = await request('/k/r', { headers: { 'If-None-Match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    expect((await request('/k/r', { method: 'HEAD', headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await request('/k/r', { headers: { 'If-None-Match': '"other"' } })).status).toBe(200);
  });

  it('serves byte ranges of non-RDF resources', async () => {
    const { request } = makeApp({ public: true });
    await request('/r/bytes', text('0123456789'));
    const partial = await request('/r/bytes', { headers: { Range: 'bytes=2-5' } });
    expect(partial.status).toBe(206);
    expect(partial.headers.get('content-range')).toBe('bytes 2-5/10');
    expect(await partial.text()).toBe('2345');
    const suffix = await request('/r/bytes', { headers: { Range: 'bytes=-3' } });
    expect(await suffix.text()).toBe('789');
    const outside = await request('/r/bytes', { headers: { Range: 'bytes=50-' } });
    await expectProblem(outside, 416);
    expect(outside.headers.get('content-range')).toBe('bytes */10');
  });
});

describe('path safety', () => {
  it('refuses encoded slashes, backslashes, NUL, reserved names and over-long paths', async () => {
    const { request, storage } = makeApp({ public: true });
    for (const path of ['/a%2fb', '/a%2Fb/c', '/a%5cb', '/a%00b', '/x/y.svc-meta', '/x/.svc-tmp-1', '/a%2e%2e%2fb', `/${'a'.repeat(300)}`, `/${'ab/'.repeat(800)}`]) {
      await expectProblem(await request(path, text('x')), 400);
    }
    const written: string[] = [];
    // Startup leaves the root ACL and the server's own folder; nothing else may appear.
    for await (const entry of storage.list('/')) if (entry.path !== '/.acl' && entry.path !== '/.server/') written.push(entry.path);
    expect(written).toEqual([]);
  });

  it('never lets server-private files be written over HTTP', async () => {
    const { request, storage } = makeApp({ public: true });
    const read = async (path: string) => new Response((await storage.get(path))?.body).text();
    await request('/'); // startup writes the server's token key
    const key = await read('/.server/token-key.json');
    const quota = '{"limit":10,"used":0}';
    await storage.put('/p/.quota.json', quota, { contentType: 'application/json' });
    const json = (body: string) => text(body, 'application/json');
    const attempts: [string, RequestInit][] = [
      ['/p/.quota.json', json('{"limit":1099511627776,"used":0}')],
      ['/.server/token-key.json', json('{}')],
      ['/.server/sub/', { method: 'PUT' }],
      ['/.server/', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }],
    ];
    for (const [path, init] of attempts) await expectProblem(await request(path, init), 403);
    // A container of that name would stand where the record must go.
    await expectProblem(await request('/p/.quota.json/', { method: 'PUT' }), 400);
    expect(await read('/p/.quota.json')).toBe(quota);
    expect(key).not.toBe('');
    expect(await read('/.server/token-key.json')).toBe(key);
    expect(await storage.head('/.server/sub/')).toBeNull();
  });

  it('never serves, lists or writes the internals of a git repository (.git/, and refuses its other spellings)', async () => {
    const { request, storage } = makeApp({ public: true });
    const read = async (path: string) => new Response((await storage.get(path))?.body).text();
    await storage.put('/p/repo/.git/config', '[core]', { contentType: 'text/plain' });
    await storage.put('/p/repo/readme.txt', 'hi', { contentType: 'text/plain' });
    for (const path of ['/p/repo/.git/config', '/p/repo/.git/']) await expectProblem(await request(path), 404);
    await expectProblem(await request('/p/repo/.GIT/config'), 400);
    expect(await (await request('/p/repo/')).text()).not.toContain('.git');
    await expectProblem(await request('/p/repo/.git/hooks/post-update', text('#!/bin/sh')), 403);
    await expectProblem(await request('/p/repo/.git/', { method: 'POST', body: 'x', headers: { 'Content-Type': 'text/plain' } }), 403);
    await expectProblem(await request('/p/repo/.git/config', { method: 'DELETE' }), 404);
    await expectProblem(await request('/p/repo/.git/config', { method: 'PATCH', body: 'INSERT DATA {}', headers: { 'Content-Type': 'application/sparql-update' } }), 404);
    expect(await read('/p/repo/.git/config')).toBe('[core]');
    expect(await storage.head('/p/repo/.git/hooks/post-update')).toBeNull();
  });

  it('never serves server-private files', async () => {
    const { request, storage } = makeApp({ public: true });
    await storage.put('/.server/secret.json', '{}', { contentType: 'application/json' });
    await expectProblem(await request('/.server/secret.json'), 404);
    const listing = await (await request('/')).text();
    expect(listing).not.toContain('.server');
  });
});

describe('headers', () => {
  it('describe resources, containers and the storage root', async () => {
    const { request } = makeApp({ public: true });
    await request('/a/b', text('x'));
    const resource = await request('/a/b');
    expect(resource.headers.get('link')).toContain('<http://www.w3.org/ns/ldp#Resource>; rel="type"');
    expect(resource.headers.get('link')).toContain(`<${BASE}/a/b.acl>; rel="acl"`);
    expect(resource.headers.get('accept-patch')).toContain('text/n3');
    expect(resource.headers.get('ms-author-via')).toBe('SPARQL');
    expect(resource.headers.get('vary')).toContain('Accept');
    expect(resource.headers.get('wac-allow')).toMatch(/^user="[a-z ]*",public="[a-z ]*"$/);
    expect((await request('/a/b', { headers: { origin: 'https://app.example' } })).headers.get('access-control-expose-headers')).toContain('WAC-Allow');

    const container = await request('/a/');
    expect(container.headers.get('link')).toContain('BasicContainer');
    expect(container.headers.get('accept-post')).toContain('application/ld+json');
    expect(container.headers.get('allow')).toContain('POST');
    expect(container.headers.get('link')).not.toContain('pim/space#Storage');
    expect((await request('/')).headers.get('link')).toContain('<http://www.w3.org/ns/pim/space#Storage>; rel="type"');
  });

  it('never offer DELETE on a storage root (the server root or a pod root)', async () => {
    const world = await podWorld(['alice']);
    for (const root of ['/', '/alice/']) {
      const options = await world.as('alice', root, { method: 'OPTIONS' });
      expect(options.headers.get('allow')).toBe('OPTIONS, HEAD, GET, POST, PUT');
      const refused = await world.as('alice', root, { method: 'DELETE' });
      await expectProblem(refused, 405);
      expect(refused.headers.get('allow')).toBe(options.headers.get('allow'));
    }
    expect((await world.as('alice', '/alice/notes/', { method: 'PUT' })).headers.get('allow')).toContain('DELETE');
  });

  it('carry CORS headers on reads for CORS requests only, and say that they vary by Origin', async () => {
    const { request } = makeApp({ public: true });
    await request('/a/b', text('x'));
    for (const method of ['GET', 'HEAD']) {
      for (const path of ['/a/b', '/a/']) {
        const plain = await request(path, { method });
        expect(plain.status, `${method} ${path}`).toBe(200);
        expect(plain.headers.get('vary'), `${method} ${path}`).toContain('Origin');
        expect(plain.headers.get('access-control-allow-origin'), `${method} ${path}`).toBeNull();
        expect(plain.headers.get('access-control-expose-headers'), `${method} ${path}`).toBeNull();
        expect(plain.headers.get('x-content-type-options'), `${method} ${path}`).toBe('nosniff');
        const cors = await request(path, { method, headers: { origin: 'https://app.example' } });
        expect(cors.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe('https://app.example');
        expect(cors.headers.get('access-control-allow-credentials'), `${method} ${path}`).toBe('true');
        expect(cors.headers.get('access-control-expose-headers'), `${method} ${path}`).toContain('WAC-Allow');
        const sandboxed = await request(path, { method, headers: { origin: 'null' } });
        expect(sandboxed.headers.get('access-control-allow-origin'), `${method} ${path}`).toBe('*');
      }
    }
    // Error answers keep theirs: they say nothing about varying by Origin.
    expect((await request('/missing')).headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers CORS preflight on any path', async () => {
    const { request } = makeApp({ public: true });
    const response = await request('/anything/here', {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'PUT', 'Access-Control-Request-Headers': 'content-type, authorization' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(response.headers.get('access-control-allow-headers')).toBe('content-type, authorization');
  });

  it('lists members with type, modification time and size, never auxiliary resources', async () => {
    const { request } = makeApp({ public: true });
    await request('/l/one.txt', text('abc'));
    await request('/l/sub/x', text('1'));
    await request('/l/.acl', text('<#a> a <http://www.w3.org/ns/auth/acl#Authorization>.', 'text/turtle'));
    const response = await request('/l/');
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    const document = (await response.json()) as { '@graph': Record<string, unknown>[] };
    const container = document['@graph'].find((n) => n['@id'] === `${BASE}/l/`)!;
    expect(container.contains).toEqual([`${BASE}/l/one.txt`, `${BASE}/l/sub/`]);
    const member = document['@graph'].find((n) => n['@id'] === `${BASE}/l/one.txt`)!;
    expect(member).toMatchObject({ '@type': ['ldp:Resource'], size: '3' });
    expect(Date.parse(member.modified as string)).toBeGreaterThan(0);
  });
});

describe('limits and modes', () => {
  it('refuses bodies over the limit with 413 and stores nothing', async () => {
    const { request, storage } = makeApp({ public: true, maxBodySize: '10B' });
    await expectProblem(await request('/big', text('x'.repeat(20))), 413);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('y'.repeat(8)));
        controller.enqueue(new TextEncoder().encode('y'.repeat(8)));
        controller.close();
      },
    });
    const chunked = await request('/big', { method: 'PUT', body: stream, headers: { 'Content-Type': 'text/plain' }, duplex: 'half' } as RequestInit);
    await expectProblem(chunked, 413);
    expect(await storage.head('/big')).toBeNull();
    expect((await request('/small', text('x'.repeat(10)))).status).toBe(201);
  });

  it('refuses writes with 405 under --read-only', async () => {
    const { request } = makeApp({ public: true, readOnly: true });
    for (const method of ['PUT', 'POST', 'PATCH', 'DELETE']) {
      const response = await request('/ro/x', { method, body: method === 'DELETE' ? undefined : 'x', headers: { 'Content-Type': 'text/plain' } });
      await expectProblem(response, 405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    }
    expect((await request('/')).status).toBe(200);
  });

  it('answers unknown methods with 405 and Allow', async () => {
    const { request } = makeApp({ public: true });
    const response = await request('/a', { method: 'PROPFIND' });
    await expectProblem(response, 405);
    expect(response.headers.get('allow')).toContain('GET');
  });
});
