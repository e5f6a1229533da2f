import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { ConfigError, resolveConfig } from '../../src/config/resolve.ts';
import type { DocumentStore } from '../../src/docdb/store.ts';
import { readQuotaRecord, writeQuotaRecord } from '../../src/quota/record.ts';
import { openMongoDocumentStore } from '../../runtimes/node/docdb.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp, type TestApp } from '../support/app.ts';
import { startTestDatabase, usingRealMongod, type TestDatabase } from '../support/jongodb.ts';

const JSON_LD = 'application/ld+json';
const note = (name: string) => JSON.stringify({ '@context': { name: 'http://schema.org/name' }, '@id': '#it', name });

let database: TestDatabase;
let store: DocumentStore;
let pod: TestApp;
let alice: Record<string, string>;
let bob: Record<string, string>;
let aliceWebId: string;

async function createPod(name: string): Promise<{ headers: Record<string, string>; webId: string }> {
  const created = await pod.request('/.pods', { method: 'POST', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' } });
  expect(created.status).toBe(201);
  const { token, webId } = (await created.json()) as { token: string; webId: string };
  return { headers: { Authorization: `Bearer ${token}` }, webId };
}

const put = (path: string, body: string, headers: Record<string, string>, type = JSON_LD) =>
  pod.request(path, { method: 'PUT', body, headers: { 'Content-Type': type, ...headers } });

beforeAll(async () => {
  if (!usingRealMongod) console.info('docdb tests: MONGODB_URL is not set, so they run against jongodb (a MongoDB-wire server) and the real-mongod run is skipped.');
  database = await startTestDatabase();
  store = await openMongoDocumentStore(database.url, database.database);
  pod = makeApp({ docdb: true, conneg: true }, new MemoryDriver(), { documentStore: store });
  await pod.app.init();
  ({ headers: alice, webId: aliceWebId } = await createPod('alice'));
  ({ headers: bob } = await createPod('bob'));
}, 30_000);

afterAll(async () => {
  await store?.close();
  await database?.stop();
});

describe('the /db/ route', () => {
  it('stores a JSON-LD document with PUT (201, then 204) and reads it back as sent, with an ETag', async () => {
    const created = await put('/db/alice/notes/first', note('one'), alice);
    expect(created.status).toBe(201);
    const etag = created.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);

    const read = await pod.request('/db/alice/notes/first', { headers: alice });
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe(JSON_LD);
    expect(read.headers.get('etag')).toBe(etag);
    expect(await read.text()).toBe(note('one'));

    const replaced = await put('/db/alice/notes/first', note('two'), alice);
    expect(replaced.status).toBe(204);
    expect(replaced.headers.get('etag')).not.toBe(etag);
    expect(await (await pod.request('/db/alice/notes/first', { headers: alice })).text()).toBe(note('two'));
  });

  it('answers HEAD without a body and Turtle under --conneg', async () => {
    await put('/db/alice/notes/turtle', note('ttl'), alice);
    const head = await pod.request('/db/alice/notes/turtle', { method: 'HEAD', headers: alice });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const turtle = await pod.request('/db/alice/notes/turtle', { headers: { ...alice, Accept: 'text/turtle' } });
    expect(turtle.headers.get('content-type')).toBe('text/turtle');
    expect(await turtle.text()).toContain('<http://schema.org/name> "ttl"');
    expect((await pod.request('/db/alice/notes/turtle', { headers: { ...alice, Accept: 'image/png' } })).status).toBe(406);
  });

  it('lists the direct members of a container, derived from the stored URIs', async () => {
    await put('/db/alice/list/a', note('a'), alice);
    await put('/db/alice/list/b', note('b'), alice);
    await put('/db/alice/list/deeper/c', note('c'), alice);
    await put('/db/alice/list/deeper/still/d', note('d'), alice);
    await put('/db/alice/listing-neighbour', note('n'), alice);
    const listing = await pod.request('/db/alice/list/', { headers: { ...alice, Accept: JSON_LD } });
    expect(listing.status).toBe(200);
    expect(listing.headers.get('content-type')).toBe(JSON_LD);
    const body = (await listing.json()) as { 'ldp:contains': { '@id': string }[] };
    expect(body['ldp:contains'].map((member) => member['@id'])).toEqual(['a', 'b', 'deeper/']);

    const deeper = (await (await pod.request('/db/alice/list/deeper/', { headers: { ...alice, Accept: JSON_LD } })).json()) as { 'ldp:contains': { '@id': string }[] };
    expect(deeper['ldp:contains'].map((member) => member['@id'])).toEqual(['c', 'still/']);

    const turtle = await pod.request('/db/alice/list/', { headers: { ...alice, Accept: 'text/turtle' } });
    expect(await turtle.text()).toContain('<http://www.w3.org/ns/ldp#contains> <a>, <b>, <deeper/>');
  });

  it('lists the pod container even when empty, and answers 404 for containers no document is under', async () => {
    const empty = await pod.request('/db/bob/', { headers: { ...bob, Accept: JSON_LD } });
    expect(empty.status).toBe(200);
    expect(((await empty.json()) as { 'ldp:contains': unknown[] })['ldp:contains']).toEqual([]);
    expect((await pod.request('/db/alice/nothing-here/', { headers: alice })).status).toBe(404);
  });

  it('deletes a document (204), after which it is gone (404)', async () => {
    await put('/db/alice/notes/doomed', note('x'), alice);
    expect((await pod.request('/db/alice/notes/doomed', { method: 'DELETE', headers: alice })).status).toBe(204);
    expect((await pod.request('/db/alice/notes/doomed', { headers: alice })).status).toBe(404);
    expect((await pod.request('/db/alice/notes/doomed', { method: 'DELETE', headers: alice })).status).toBe(404);
  });

  it('refuses bodies that are not JSON-LD (400) and other content types (415), storing nothing', async () => {
    for (const body of ['{"@id": ', '"just a string"', '{"@context": {"@version": 2}}']) {
      const refused = await put('/db/alice/bad/doc', body, alice);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
    }
    const turtle = await put('/db/alice/bad/doc', '<#it> <http://schema.org/name> "x".', alice, 'text/turtle');
    expect(turtle.status).toBe(415);
    expect(turtle.headers.get('content-type')).toBe('application/problem+json');
    expect((await pod.request('/db/alice/bad/doc', { headers: alice })).status).toBe(404);
  });

  it('refuses writes to containers and other methods with 405, and unknown pods or paths outside pods with 404', async () => {
    expect((await put('/db/alice/notes/', note('c'), alice)).status).toBe(405);
    const post = await pod.request('/db/alice/notes/first', { method: 'POST', body: note('p'), headers: { ...alice, 'Content-Type': JSON_LD } });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('PUT');
    expect((await put('/db/nobody/doc', note('x'), alice)).status).toBe(404);
    expect((await pod.request('/db/', { headers: alice })).status).toBe(404);
    expect((await pod.request('/db/alice/a//b', { headers: alice })).status).toBe(400);
  });
});

describe('access to /db/<user>/', () => {
  it('is the owner\'s alone by default: another user gets 403, anonymous 401, for reads, listings and writes', async () => {
    await put('/db/alice/private/doc', note('secret'), alice);
    for (const [who, status] of [[bob, 403], [{}, 401]] as const) {
      expect((await pod.request('/db/alice/private/doc', { headers: who })).status).toBe(status);
      expect((await pod.request('/db/alice/private/', { headers: who })).status).toBe(status);
      expect((await put('/db/alice/private/doc', note('overwritten'), who)).status).toBe(status);
      expect((await pod.request('/db/alice/private/doc', { method: 'DELETE', headers: who })).status).toBe(status);
    }
    expect(await (await pod.request('/db/alice/private/doc', { headers: alice })).text()).toBe(note('secret'));
  });

  it('follows the ACL the owner sets at /<user>/db/: public read there, still no writes for others', async () => {
    await put('/db/alice/shared/doc', note('shared'), alice);
    const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <${aliceWebId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#public> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.`;
    expect((await pod.request('/alice/db/', { method: 'PUT', headers: { ...alice, 'Content-Type': 'text/turtle', Link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' } })).status).toBeLessThan(300);
    expect((await pod.request('/alice/db/.acl', { method: 'PUT', body: acl, headers: { ...alice, 'Content-Type': 'text/turtle' } })).status).toBeLessThan(300);

    expect((await pod.request('/db/alice/shared/doc')).status).toBe(200);
    expect((await pod.request('/db/alice/shared/doc', { headers: bob })).status).toBe(200);
    expect((await pod.request('/db/alice/shared/', { headers: bob })).status).toBe(200);
    expect((await put('/db/alice/shared/doc', note('bob was here'), bob)).status).toBe(403);
    expect((await put('/db/alice/shared/doc', note('anonymous'), {})).status).toBe(401);
    expect((await put('/db/alice/shared/doc', note('still alice'), alice)).status).toBe(204);
  });
});

describe('conditional writes', () => {
  it('honour If-None-Match: * (create only) and If-Match with the current ETag, in the database', async () => {
    const created = await put('/db/alice/cond/doc', note('v1'), { ...alice, 'If-None-Match': '*' });
    expect(created.status).toBe(201);
    expect((await put('/db/alice/cond/doc', note('again'), { ...alice, 'If-None-Match': '*' })).status).toBe(412);
    const etag = created.headers.get('etag')!;

    expect((await put('/db/alice/cond/doc', note('stale'), { ...alice, 'If-Match': '"not-the-etag"' })).status).toBe(412);
    const updated = await put('/db/alice/cond/doc', note('v2'), { ...alice, 'If-Match': etag });
    expect(updated.status).toBe(204);
    expect((await put('/db/alice/cond/doc', note('lost update'), { ...alice, 'If-Match': etag })).status).toBe(412);
    expect((await pod.request('/db/alice/cond/doc', { method: 'DELETE', headers: { ...alice, 'If-Match': etag } })).status).toBe(412);
    expect(await (await pod.request('/db/alice/cond/doc', { headers: alice })).text()).toBe(note('v2'));

    expect((await put('/db/alice/cond/missing', note('x'), { ...alice, 'If-Match': '*' })).status).toBe(412);
    expect((await pod.request('/db/alice/cond/missing', { headers: alice })).status).toBe(404);
  });

  it('answer conditional GETs: 304 for a matching If-None-Match, 412 for a failing If-Match', async () => {
    const etag = (await put('/db/alice/cond/read', note('r'), alice)).headers.get('etag')!;
    expect((await pod.request('/db/alice/cond/read', { headers: { ...alice, 'If-None-Match': etag } })).status).toBe(304);
    expect((await pod.request('/db/alice/cond/read', { headers: { ...alice, 'If-Match': '"other"' } })).status).toBe(412);
  });

  it('let exactly one of many concurrent create-only writes win', async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => put('/db/alice/race/doc', note(`writer ${index}`), { ...alice, 'If-None-Match': '*' })),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(9);
  });

  it('leave a document written by another server process since the read alone (the version in the filter decides)', async () => {
    await put('/db/alice/cond/shared', note('first'), alice);
    const seen = (await store.get('/db/alice/cond/shared'))!;
    // A second server on the same database writes in between.
    expect(await store.replace({ ...seen, body: note('other process'), version: 'other-version' }, seen.version)).toBe(true);
    expect(await store.replace({ ...seen, body: note('stale writer') }, seen.version)).toBe(false);
    expect(await store.remove(seen.id, seen.version)).toBe(false);
    // A create-only write of an existing document is refused by the unique _id.
    expect(await store.create({ ...seen, body: note('second creator'), version: 'another' })).toBe(false);
    expect((await store.get(seen.id))!.body).toBe(note('other process'));
  });
});

describe('quota', () => {
  it('counts documents against the pod\'s quota like files: 507 past the limit, bytes freed on delete', async () => {
    const before = (await readQuotaRecord(pod.storage, '/bob/'))!.record;
    await writeQuotaRecord(pod.storage, '/bob/', { limit: before.used + 1000, used: before.used });

    const body = note('x'.repeat(500));
    const size = new TextEncoder().encode(body).byteLength;
    expect((await put('/db/bob/quota/one', body, bob)).status).toBe(201);
    expect((await readQuotaRecord(pod.storage, '/bob/'))!.record.used).toBe(before.used + size);

    const refused = await put('/db/bob/quota/two', body, bob);
    expect(refused.status).toBe(507);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await pod.request('/db/bob/quota/two', { headers: bob })).status).toBe(404);
    // Files count against the same limit: the document's bytes leave too little room.
    expect((await pod.request('/bob/file.txt', { method: 'PUT', body: 'y'.repeat(1000 - size + 1), headers: { ...bob, 'Content-Type': 'text/plain' } })).status).toBe(507);

    expect((await pod.request('/db/bob/quota/one', { method: 'DELETE', headers: bob })).status).toBe(204);
    expect((await readQuotaRecord(pod.storage, '/bob/'))!.record.used).toBe(before.used);
    expect((await put('/db/bob/quota/two', body, bob)).status).toBe(201);
  });
});

describe('--docdb on a runtime without a document store', () => {
  it('is refused at startup, naming the runtime', () => {
    const config = resolveConfig({ flags: { quiet: true, docdb: true } });
    for (const runtime of ['deno', 'bun', 'workers']) {
      const start = () => createApp(config, { runtime, storage: new MemoryDriver(), log: () => undefined });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(`the ${runtime} runtime`);
    }
  });
});
