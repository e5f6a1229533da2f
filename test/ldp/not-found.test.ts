import * as rdf from 'rdflib';
import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl, type PodWorld } from '../wac/pods.ts';

const FOAF_NAME = 'http://xmlns.com/foaf/0.1/name';

/** Allow as a set of method names, so the order of the list does not matter. */
function allowed(response: Response): string[] {
  return (response.headers.get('allow') ?? '').split(',').map((method) => method.trim()).filter(Boolean).sort();
}

describe('a 404 tells a caller who may create the resource how to', () => {
  it('gives the owner the creating methods, the body types, the ACL link and where to subscribe', async () => {
    const world = await podWorld(['alice'], { conneg: true, notifications: true });
    const response = await world.as('alice', '/alice/private/new.ttl');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(allowed(response)).toEqual(['GET', 'HEAD', 'OPTIONS', 'PATCH', 'PUT']);
    expect(response.headers.get('accept-put')).toContain('text/turtle');
    expect(response.headers.get('accept-patch')).toBe('text/n3, application/sparql-update');
    expect(response.headers.has('accept-post')).toBe(false);
    expect(response.headers.get('link')).toContain(`<${BASE}/alice/private/new.ttl.acl>; rel="acl"`);
    expect(response.headers.get('link')).toContain('rel="http://www.w3.org/ns/solid/terms#storageDescription"');
    expect(response.headers.get('link')).not.toContain('ldp#Resource');
    expect(response.headers.get('updates-via')).toBe('ws://pod.test/.notifications');
    expect(response.headers.get('wac-allow')).toBe('user="read write append control",public=""');

    const head = await world.as('alice', '/alice/private/new.ttl', { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(allowed(head)).toEqual(allowed(response));

    const container = await world.as('alice', '/alice/private/box/');
    expect(container.status).toBe(404);
    expect(allowed(container)).toEqual(['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
    expect(container.headers.get('accept-post')).toContain('*/*');
    expect(container.headers.has('accept-patch')).toBe(false);
  });

  it('gives a reader who may not create only the read methods, no Accept-*, and still the ACL link', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const response = await world.as(null, '/alice/public/missing');
    expect(response.status).toBe(404);
    expect(allowed(response)).toEqual(['GET', 'HEAD', 'OPTIONS']);
    for (const header of ['accept-put', 'accept-patch', 'accept-post', 'ms-author-via']) expect(response.headers.has(header)).toBe(false);
    expect(response.headers.get('link')).toContain(`<${BASE}/alice/public/missing.acl>; rel="acl"`);
    expect(response.headers.get('updates-via')).toBe('ws://pod.test/.notifications');
    expect(response.headers.get('wac-allow')).toBe('user="read",public="read"');
  });

  it('offers exactly what the ACLs allow: PATCH (Append) without PUT (Write)', async () => {
    const world = await podWorld(['alice']);
    const acl = ownerRule(`${BASE}/alice/#me`) + '<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Append.\n';
    expect((await world.as('alice', '/alice/guestbook/.acl', putTurtleAcl(acl))).status).toBe(201);
    const response = await world.as(null, '/alice/guestbook/entry');
    expect(response.status).toBe(404);
    expect(allowed(response)).toEqual(['GET', 'HEAD', 'OPTIONS', 'PATCH']);
    expect(response.headers.has('accept-put')).toBe(false);
    expect(response.headers.get('accept-patch')).toContain('application/sparql-update');
    // The advertised PATCH works, and the PUT that was not advertised is refused.
    const patch = { method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body: `INSERT DATA { <#e> <${FOAF_NAME}> "Guest" }` };
    expect((await world.as(null, '/alice/guestbook/entry', patch)).status).toBe(201);
    expect((await world.as(null, '/alice/guestbook/other', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: '{}' })).status).toBe(401);
  });

  it('offers nothing to create under --read-only, nor for the server\'s own files', async () => {
    const readOnly = await podWorld(['alice']);
    // The pod is made first; then the server turns read-only (the handlers read the config per request).
    readOnly.config.readOnly = true;
    expect(allowed(await readOnly.as('alice', '/alice/private/new'))).toEqual(['GET', 'HEAD', 'OPTIONS']);
    const world = await podWorld(['alice']);
    const quota = await world.as('alice', '/alice/.quota.json');
    expect(quota.status).toBe(404);
    expect(allowed(quota)).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(quota.headers.has('accept-put')).toBe(false);
  });

  it('reveals nothing to a caller who may not read: a missing and an existing resource are refused alike', async () => {
    const world = await podWorld(['alice']);
    await world.as('alice', '/alice/private/there', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
    const missing = await world.as(null, '/alice/private/not-there');
    const existing = await world.as(null, '/alice/private/there');
    expect([missing.status, existing.status]).toEqual([401, 401]);
    const names = (response: Response) => [...response.headers.keys()].filter((name) => !['content-length'].includes(name)).sort();
    expect(names(missing)).toEqual(names(existing));
    expect(missing.headers.has('allow')).toBe(false);
  });
});

describe('rdflib', () => {
  /** rdflib's fetch, answered by the app, with the owner's token. */
  function fetchAs(world: PodWorld, who: string): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('authorization', `Bearer ${world.tokens[who]}`);
      return world.app.fetch(request);
    };
  }

  it('UpdateManager creates a new document, which it can only do when the 404 says how', async () => {
    const world = await podWorld(['alice'], { conneg: true });
    const store = rdf.graph();
    new rdf.Fetcher(store, { fetch: fetchAs(world, 'alice') });
    const updater = new rdf.UpdateManager(store);
    const doc = rdf.sym(`${BASE}/alice/private/notes.ttl`);
    await updater.update([], [rdf.st(rdf.sym(`${doc.value}#it`), rdf.sym(FOAF_NAME), rdf.lit('Created by rdflib'), doc)]);
    const read = await world.as('alice', '/alice/private/notes.ttl', { headers: { accept: 'text/turtle' } });
    expect(read.status).toBe(200);
    const quads = await parseRdf(await read.text(), 'text/turtle', doc.value);
    expect(quads.map((q) => q.object.value)).toEqual(['Created by rdflib']);
  });
});
