import { describe, expect, it } from 'vitest';
import { makeApp, type TestApp } from '../support/app.ts';

/** Bodies that once held the event loop for seconds, or were stored and then could not be served. */

const START = '<#a> <http://ex/p> "start" .';

async function setup(): Promise<TestApp> {
  const app = makeApp({ conneg: true, public: true, notifications: true });
  expect((await app.request('/doc.ttl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: START })).status).toBe(201);
  return app;
}

async function stored(app: TestApp, path: string): Promise<string | null> {
  const resource = await app.storage.get(path);
  return resource ? new Response(resource.body).text() : null;
}

async function expectTooDeep(response: Response) {
  expect(response.status).toBe(422);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = await response.json();
  expect(problem.type).toBe('urn:svc:problem:too-deeply-nested');
  expect(problem.limit).toBe(100);
}

const nestedList = (depth: number) => `${'('.repeat(depth)}"x"${')'.repeat(depth)}`;

describe('hostile request bodies', () => {
  it('refuses with 422 an N3 document with variables, which JSON-LD and Turtle cannot carry, and keeps the stored one', async () => {
    const app = await setup();
    const body = '@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n_:p a solid:InsertDeletePatch; solid:deletes { ?x <#a> <#a> . }.';
    const refused = await app.request('/doc.ttl', { method: 'PUT', headers: { 'Content-Type': 'text/n3' }, body });
    expect(refused.status).toBe(422);
    expect((await refused.json()).type).toBe('urn:svc:problem:rdf-variables');
    expect(await stored(app, '/doc.ttl')).toBe(START);
    expect((await app.request('/doc.ttl', { headers: { Accept: 'application/ld+json' } })).status).toBe(200);
  });

  it('refuses with 413 a JSON-LD node of 40,000 values, anonymously, in a pod inbox, and takes them as 10,000 nodes of @graph', async () => {
    const app = makeApp({ public: false });
    expect((await app.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) })).status).toBe(201);
    const values = Array.from({ length: 40_000 }, (_, index) => `v${index}`);
    const refused = await app.request('/alice/inbox/', { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify({ '@id': '#r', 'http://ex/p': values }) });
    expect(refused.status).toBe(413);
    expect((await refused.json()).type).toBe('urn:svc:problem:jsonld-too-large');
    const graph = { '@graph': values.slice(0, 10_000).map((value) => ({ '@id': '#r', 'http://ex/p': value })) };
    const response = await app.request('/alice/inbox/', { method: 'POST', headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify(graph) });
    expect(response.status).toBe(201);
    const location = new URL(response.headers.get('location')!).pathname;
    expect(JSON.parse((await stored(app, location))!)['@graph']).toHaveLength(10_000);
  });

  it('refuses a SPARQL Update nested 6,000 groups deep before parsing it, and changes nothing', async () => {
    const app = await setup();
    const body = `DELETE { ?s ?p ?o } WHERE ${'{'.repeat(6000)} ?s ?p ?o ${'}'.repeat(6000)}`;
    await expectTooDeep(await app.request('/doc.ttl', { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body }));
    expect(await stored(app, '/doc.ttl')).toBe(START);
  });

  it('refuses an N3 Patch nested too deeply', async () => {
    const app = await setup();
    const body = `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { <#a> <http://ex/p> ${nestedList(500)} }.`;
    await expectTooDeep(await app.request('/doc.ttl', { method: 'PATCH', headers: { 'Content-Type': 'text/n3' }, body }));
    expect(await stored(app, '/doc.ttl')).toBe(START);
  });

  it.each([
    ['Turtle lists', 'text/turtle', `<#a> <http://ex/p> ${nestedList(1000)} .`],
    ['Turtle blank nodes', 'text/turtle', `<#a> <http://ex/p> ${'[ <http://ex/p> '.repeat(1000)}"x"${' ]'.repeat(1000)} .`],
    ['N-Triples lists', 'application/n-triples', Array.from({ length: 1000 }, (_, i) => `_:l${i} <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> _:l${i + 1} .\n_:l${i} <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> .`).join('\n')],
    ['JSON-LD', 'application/ld+json', `${'{"http://ex/p":'.repeat(1000)}"x"${'}'.repeat(1000)}`],
  ])('refuses %s nested 1,000 deep on write, which it could not serve, and keeps the old version', async (_, type, body) => {
    const app = await setup();
    await expectTooDeep(await app.request('/doc.ttl', { method: 'PUT', headers: { 'Content-Type': type }, body }));
    expect(await stored(app, '/doc.ttl')).toBe(START);
    await expectTooDeep(await app.request('/new-doc', { method: 'PUT', headers: { 'Content-Type': type }, body }));
    expect(await app.storage.head('/new-doc')).toBeNull();
  });

  it('serves nested lists it accepts, in every form', async () => {
    const app = await setup();
    expect((await app.request('/lists.ttl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: `<#a> <http://ex/p> ${nestedList(100)} .` })).status).toBe(201);
    for (const accept of ['application/ld+json', 'text/turtle', 'application/n-triples']) {
      expect((await app.request('/lists.ttl', { headers: { Accept: accept } })).status).toBe(200);
    }
  });

  it('answers 422 rather than 500 when reading a nested document stored before the limit', async () => {
    const app = await setup();
    await app.storage.put('/old.ttl', `<#a> <http://ex/p> ${nestedList(1000)} .`, { contentType: 'text/turtle' });
    expect((await app.request('/old.ttl', { headers: { Accept: 'application/ld+json' } })).status).toBe(422);
  });

  it('refuses a deeply nested ACL document', async () => {
    const app = await setup();
    const body = `@prefix acl: <http://www.w3.org/ns/auth/acl#>. <#r> a acl:Authorization; acl:agentClass ${nestedList(200)}.`;
    await expectTooDeep(await app.request('/doc.ttl.acl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body }));
    expect(await app.storage.head('/doc.ttl.acl')).toBeNull();
  });

  it.each([
    ['a pod', '/.pods', 'application/json'],
    ['a notification subscription', '/.notifications/WebSocketChannel2023/', 'application/ld+json'],
  ])('refuses deeply nested JSON when asking for %s', async (_, path, type) => {
    const app = await setup();
    const body = `{"name":${'['.repeat(2000)}${']'.repeat(2000)}}`;
    await expectTooDeep(await app.request(path, { method: 'POST', headers: { 'content-type': type }, body }));
  });
});

describe('SPARQL Update size', () => {
  const insertData = (triples: number) => `INSERT DATA { ${Array.from({ length: triples }, (_, i) => `<#s${i}> <http://ex/p> "v${i}" .`).join(' ')} }`;

  it('applies a large INSERT DATA (parsed by n3, not sparqljs)', async () => {
    const app = await setup();
    const response = await app.request('/big.ttl', { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body: insertData(20_000) });
    expect(response.status).toBe(201);
    expect((await app.request('/big.ttl', { headers: { Accept: 'application/n-triples' } }).then((r) => r.text())).trim().split('\n')).toHaveLength(20_000);
  });

  it('refuses another SPARQL Update over 16 KB with 413 before sparqljs parses it', async () => {
    const app = await setup();
    const where = Array.from({ length: 1000 }, (_, i) => `?s${i} ?p${i} ?o${i} .`).join(' ');
    const response = await app.request('/big', { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body: `DELETE { ?s ?p ?o } WHERE { ${where} ?s ?p ?o }` });
    expect(response.status).toBe(413);
    expect((await response.json()).type).toBe('urn:svc:problem:body-too-large');
    expect(await app.storage.head('/big')).toBeNull();
  });

  it('applies one just under the limit', async () => {
    const app = await setup();
    const body = insertData(400).replace('INSERT DATA {', 'INSERT {').concat(' WHERE { }');
    expect(body.length).toBeLessThan(16 * 1024);
    expect((await app.request('/doc.ttl', { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body })).status).toBe(204);
  });
});
