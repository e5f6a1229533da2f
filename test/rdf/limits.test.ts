import { describe, expect, it } from 'vitest';
import { makeApp, type TestApp } from '../support/app.ts';

/** --max-rdf-size: what one RDF document may hold to be parsed (its text, and one triple for every 32 bytes of it). */

const TURTLE = { 'Content-Type': 'text/turtle' };
const JSON_LD = { 'Content-Type': 'application/ld+json' };
const list = (items: number) => `<#r> <http://ex/p> (${Array.from({ length: items }, (_, i) => `"${i}"`).join(' ')}) .`;

async function stored(app: TestApp, path: string): Promise<string | null> {
  const resource = await app.storage.get(path);
  return resource ? new Response(resource.body).text() : null;
}

async function problemOf(response: Response, status: number): Promise<Record<string, unknown>> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return response.json();
}

describe('the RDF limits', () => {
  // 16 KB: at most 512 triples.
  const app = () => makeApp({ conneg: true, public: true, maxRdfSize: '16KB' });

  it('refuses RDF bodies over --max-rdf-size with 413 and stores nothing, while other bodies go up to --max-body-size', async () => {
    const server = app();
    const large = `<#r> <http://ex/p> "${'x'.repeat(17 * 1024)}" .`;
    const problem = await problemOf(await server.request('/big.ttl', { method: 'PUT', headers: TURTLE, body: large }), 413);
    expect(problem).toMatchObject({ type: 'urn:svc:problem:rdf-too-large', limit: 16 * 1024 });
    expect(problem.detail).toContain('16 KB');
    expect(await stored(server, '/big.ttl')).toBeNull();
    const declared = await server.request('/big.jsonld', { method: 'PUT', headers: { ...JSON_LD, 'Content-Length': String(large.length) }, body: large });
    expect(((await problemOf(declared, 413)) as { type: string }).type).toBe('urn:svc:problem:rdf-too-large');
    expect((await server.request('/big.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: large })).status).toBe(201);
  });

  it('refuses documents with more triples than the limit allows, in Turtle and in JSON-LD', async () => {
    const server = app();
    // 600 items are 1,200 triples in 4 KB.
    expect(((await problemOf(await server.request('/list.ttl', { method: 'PUT', headers: TURTLE, body: list(600) }), 413)) as { type: string }).type).toBe('urn:svc:problem:rdf-too-many-triples');
    expect(await stored(server, '/list.ttl')).toBeNull();
    const nodes = { '@graph': Array.from({ length: 1100 }, (_, i) => ({ '@id': `#n${i}`, 'http://ex/p': i })) };
    const body = JSON.stringify(nodes);
    const wide = makeApp({ conneg: true, public: true, maxRdfSize: '64KB' });
    expect((await wide.request('/nodes.jsonld', { method: 'PUT', headers: JSON_LD, body })).status).toBe(201);
    const narrow = app();
    const refused = await narrow.request('/nodes.jsonld', { method: 'PUT', headers: JSON_LD, body: JSON.stringify({ '@graph': nodes['@graph'].slice(0, 250).map((node) => ({ ...node, 'http://ex/q': [1, 2, 3, 4] })) }) });
    expect(((await problemOf(refused, 413)) as { limit: number }).limit).toBe(512);
    expect((await server.request('/list.ttl', { method: 'PUT', headers: TURTLE, body: list(250) })).status).toBe(201);
  });

  it('refuses a PATCH whose result would pass the triple limit, and keeps the document', async () => {
    const server = app();
    expect((await server.request('/list.ttl', { method: 'PUT', headers: TURTLE, body: list(250) })).status).toBe(201);
    const before = await stored(server, '/list.ttl');
    const inserts = Array.from({ length: 30 }, (_, i) => `<#r> <http://ex/q> "${i}".`).join(' ');
    const patch = `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { ${inserts} }.`;
    expect(((await problemOf(await server.request('/list.ttl', { method: 'PATCH', headers: { 'Content-Type': 'text/n3' }, body: patch }), 413)) as { type: string }).type).toBe('urn:svc:problem:rdf-too-many-triples');
    expect(await stored(server, '/list.ttl')).toBe(before);
  });

  it('refuses a PATCH whose result would pass --max-rdf-size, and keeps the document', async () => {
    const server = app();
    const doc = `<#r> <http://ex/p> "${'x'.repeat(15 * 1024)}" .`;
    expect((await server.request('/long.ttl', { method: 'PUT', headers: TURTLE, body: doc })).status).toBe(201);
    const patch = `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { <#r> <http://ex/q> "${'y'.repeat(2 * 1024)}". }.`;
    expect(((await problemOf(await server.request('/long.ttl', { method: 'PATCH', headers: { 'Content-Type': 'text/n3' }, body: patch }), 413)) as { type: string }).type).toBe('urn:svc:problem:rdf-too-large');
    expect(await stored(server, '/long.ttl')).toBe(doc);
  });

  it('serves a document larger than it parses (written by other means) only as stored', async () => {
    const server = app();
    const large = list(3000);
    await server.storage.put('/outside.ttl', large, { contentType: 'text/turtle' });
    const asStored = await server.request('/outside.ttl', { headers: { Accept: '*/*' } });
    expect(asStored.status).toBe(200);
    expect(await asStored.text()).toBe(large);
    const problem = await problemOf(await server.request('/outside.ttl', { headers: { Accept: 'application/ld+json' } }), 406);
    expect(problem.detail).toContain('served only as stored: text/turtle');
  });
});
