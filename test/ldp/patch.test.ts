import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BASE, makeApp, type TestApp } from '../support/app.ts';
import { startSvc } from '../support/server.ts';
import { canonical } from '../rdf/canonical.ts';

const PREFIXES = '@prefix solid: <http://www.w3.org/ns/solid/terms#>. @prefix ex: <http://example.org/>.\n';
const SPARQL_PREFIX = 'PREFIX ex: <http://example.org/>\n';
const START = `@prefix ex: <http://example.org/>.\n<#a> ex:name "Alice"; ex:age 30; ex:knows <#b>, <#c>.\n<#b> ex:name "Bob".\n`;

const n3 = (body: string) => ({ contentType: 'text/n3', body: PREFIXES + body });
const sparql = (body: string) => ({ contentType: 'application/sparql-update', body: SPARQL_PREFIX + body });

async function setup(): Promise<TestApp> {
  const app = makeApp({ conneg: true, public: true });
  const put = await app.request('/doc.ttl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: START });
  expect(put.status).toBe(201);
  const notes = await app.request('/notes.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
  expect(notes.status).toBe(201);
  return app;
}

async function patch(app: TestApp, path: string, form: { contentType: string; body: string }, headers: Record<string, string> = {}) {
  return app.request(path, { method: 'PATCH', headers: { 'Content-Type': form.contentType, ...headers }, body: form.body });
}

async function graphOf(app: TestApp, path: string): Promise<string> {
  const response = await app.request(path, { headers: { Accept: 'text/turtle' } });
  expect(response.status).toBe(200);
  return canonical(await parseRdf(await response.text(), 'text/turtle', BASE + path));
}

async function expected(turtle: string, path = '/doc.ttl'): Promise<string> {
  return canonical(await parseRdf(turtle, 'text/turtle', BASE + path));
}

interface Case {
  name: string;
  form: { contentType: string; body: string };
  status: number;
  /** The whole resource afterwards; omitted for failures, which must leave it unchanged. */
  after?: string;
  problem?: string;
  /** Target other than /doc.ttl, and extra request headers. */
  path?: string;
  headers?: Record<string, string>;
}

const CASES: Case[] = [
  { name: 'N3 insert', form: n3('<#p> a solid:InsertDeletePatch; solid:inserts { <#a> ex:likes "tea"@en. }.'), status: 204,
    after: START + '<#a> <http://example.org/likes> "tea"@en.' },
  { name: 'N3 delete and insert', form: n3('_:p a solid:InsertDeletePatch; solid:deletes { <#a> ex:age 30. }; solid:inserts { <#a> ex:age 31. }.'), status: 204,
    after: START.replace('ex:age 30', 'ex:age 31') },
  { name: 'N3 where binds a variable', form: n3('_:p a solid:InsertDeletePatch; solid:where { ?who ex:name "Bob". }; solid:inserts { ?who ex:age 40. }.'), status: 204,
    after: START + '<#b> <http://example.org/age> 40.' },
  { name: 'N3 where with a blank node acting as a variable', form: n3('_:p a solid:InsertDeletePatch; solid:where { ?x ex:age _:any. }; solid:deletes { ?x ex:name "Alice". }.'), status: 204,
    after: START.replace('ex:name "Alice"; ', '') },
  { name: 'N3 typed and language literals', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:born "1990-01-01"^^<http://www.w3.org/2001/XMLSchema#date>; ex:motto "carpe diem"@la. }.'), status: 204,
    after: START + '<#a> <http://example.org/born> "1990-01-01"^^<http://www.w3.org/2001/XMLSchema#date>; <http://example.org/motto> "carpe diem"@la.' },
  { name: 'N3 where matching nothing', form: n3('_:p a solid:InsertDeletePatch; solid:where { ?x ex:name "Zed". }; solid:inserts { ?x ex:age 1. }.'), status: 409, problem: 'patch-no-match' },
  { name: 'N3 where matching two bindings', form: n3('_:p a solid:InsertDeletePatch; solid:where { <#a> ex:knows ?x. }; solid:inserts { ?x ex:age 1. }.'), status: 409, problem: 'patch-ambiguous-match' },
  { name: 'N3 delete of an absent triple', form: n3('_:p a solid:InsertDeletePatch; solid:deletes { <#a> ex:age 99. }; solid:inserts { <#a> ex:age 100. }.'), status: 409, problem: 'patch-delete-missing' },
  { name: 'N3 syntax error', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:age }.'), status: 400, problem: 'invalid-n3' },
  { name: 'N3 without an InsertDeletePatch', form: n3('_:p solid:inserts { <#a> ex:age 1. }.'), status: 422, problem: 'invalid-n3-patch' },
  { name: 'N3 with two patch resources', form: n3('_:p a solid:InsertDeletePatch. _:q a solid:InsertDeletePatch.'), status: 422 },
  { name: 'N3 with solid:inserts twice', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:x 1. }, { <#a> ex:x 2. }.'), status: 422 },
  { name: 'N3 variable missing from where', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { ?x ex:age 1. }.'), status: 422 },
  { name: 'N3 blank node in inserts', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:friend _:f. }.'), status: 422 },
  { name: 'N3 inserts not a formula', form: n3('_:p a solid:InsertDeletePatch; solid:inserts <#a>.'), status: 422 },
  { name: 'N3 nested formula', form: n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:said { <#b> ex:x 1 } }.'), status: 422 },
  { name: 'SPARQL INSERT DATA with typed, language, number and boolean literals', form: sparql('INSERT DATA { <#a> ex:n 1.5, -2, true, "x"@fr, "y"^^ex:t . }'), status: 204,
    after: START + '<#a> <http://example.org/n> 1.5, -2, true, "x"@fr, "y"^^<http://example.org/t>.' },
  { name: 'SPARQL DELETE DATA ; INSERT DATA', form: sparql('DELETE DATA { <#a> ex:age 30 } ;\nINSERT DATA { <#a> ex:age 31 }'), status: 204,
    after: START.replace('ex:age 30', 'ex:age 31') },
  { name: 'SPARQL DELETE/INSERT/WHERE', form: sparql('DELETE { ?p ex:name ?n } INSERT { ?p ex:name "Robert" } WHERE { ?p ex:name ?n . <#a> ex:knows ?p }'), status: 204,
    after: START.replace('"Bob"', '"Robert"') },
  { name: 'SPARQL DELETE WHERE', form: sparql('DELETE WHERE { <#b> ex:name ?n }'), status: 204, after: START.replace('<#b> ex:name "Bob".', '') },
  { name: 'SPARQL INSERT DATA with a blank node', form: sparql('INSERT DATA { <#a> ex:friend [ ex:name "Eve" ] }'), status: 204,
    after: START + '<#a> <http://example.org/friend> [ <http://example.org/name> "Eve" ].' },
  { name: 'SPARQL DELETE DATA of an absent triple', form: sparql('DELETE DATA { <#a> ex:age 99 }'), status: 409, problem: 'patch-delete-missing' },
  { name: 'SPARQL WHERE matching two bindings', form: sparql('DELETE { <#a> ex:knows ?x } WHERE { <#a> ex:knows ?x }'), status: 409 },
  { name: 'SPARQL later operation failing undoes earlier ones', form: sparql('INSERT DATA { <#a> ex:x 1 } ; DELETE DATA { <#a> ex:x 2 }'), status: 409 },
  { name: 'SPARQL syntax error', form: sparql('INSERT DATA { <#a> ex:x '), status: 400, problem: 'invalid-sparql' },
  { name: 'SPARQL OPTIONAL', form: sparql('INSERT { ?s ex:x 1 } WHERE { ?s ex:name ?n OPTIONAL { ?s ex:age ?a } }'), status: 422, problem: 'unsupported-sparql' },
  { name: 'SPARQL FILTER', form: sparql('INSERT { ?s ex:x 1 } WHERE { ?s ex:age ?a FILTER(?a > 3) }'), status: 422 },
  { name: 'SPARQL GRAPH', form: sparql('INSERT DATA { GRAPH <#g> { <#a> ex:x 1 } }'), status: 422 },
  { name: 'SPARQL property path', form: sparql('INSERT { <#a> ex:x ?n } WHERE { <#a> ex:knows/ex:name ?n }'), status: 422 },
  { name: 'SPARQL CLEAR', form: sparql('CLEAR DEFAULT'), status: 422 },
  { name: 'SPARQL query instead of update', form: sparql('SELECT * WHERE { ?s ?p ?o }'), status: 422 },
  { name: 'unsupported patch type', form: { contentType: 'application/json-patch+json', body: '[]' }, status: 415, problem: 'unsupported-patch-type' },
  { name: 'PATCH on a container', form: sparql('INSERT DATA { <#a> ex:x 1 }'), path: '/', status: 409, problem: 'patch-container' },
  { name: 'PATCH on a non-RDF resource', form: sparql('INSERT DATA { <#a> ex:x 1 }'), path: '/notes.txt', status: 415, problem: 'patch-non-rdf' },
  { name: 'PATCH with a stale If-Match', form: sparql('INSERT DATA { <#a> ex:x 1 }'), headers: { 'If-Match': '"stale"' }, status: 412, problem: 'precondition-failed' },
];

describe('PATCH cases', () => {
  for (const testCase of CASES) {
    it(`${testCase.name} -> ${testCase.status}`, async () => {
      const app = await setup();
      const response = await patch(app, testCase.path ?? '/doc.ttl', testCase.form, testCase.headers);
      expect(response.status, await response.clone().text()).toBe(testCase.status);
      if (testCase.problem) {
        expect(response.headers.get('content-type')).toBe('application/problem+json');
        expect((await response.json()).type).toBe(`urn:svc:problem:${testCase.problem}`);
      }
      expect(await graphOf(app, '/doc.ttl')).toBe(await expected(testCase.after ?? START));
      expect((await app.storage.head('/doc.ttl'))?.contentType).toBe('text/turtle');
      expect(await (await app.request('/notes.txt')).text()).toBe('hello');
    });
  }
});

describe('PATCH on resources of each kind', () => {
  it('creates a missing resource (201) as JSON-LD, or Turtle when its name says so', async () => {
    const app = makeApp({ conneg: true, public: true });
    const insert = n3('_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:x 1. }.');
    const created = await patch(app, '/new/thing', insert);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${BASE}/new/thing`);
    expect((await app.storage.head('/new/thing'))?.contentType).toBe('application/ld+json');
    expect((await patch(app, '/new/card.ttl', insert)).status).toBe(201);
    expect((await app.storage.head('/new/card.ttl'))?.contentType).toBe('text/turtle');
    expect(await graphOf(app, '/new/card.ttl')).toBe(await expected('<#a> <http://example.org/x> 1.', '/new/card.ttl'));
  });

  it('refuses containers (409) and non-RDF resources (415)', async () => {
    const app = makeApp({ conneg: true, public: true });
    await app.request('/notes.txt', { method: 'PUT', headers: { 'Content-Type': 'text/plain' }, body: 'hello' });
    const insert = sparql('INSERT DATA { <#a> ex:x 1 }');
    expect((await patch(app, '/', insert)).status).toBe(409);
    expect((await patch(app, '/notes.txt', insert)).status).toBe(415);
    expect(await (await app.request('/notes.txt')).text()).toBe('hello');
  });

  it('keeps a JSON-LD resource in JSON-LD with its own context', async () => {
    const app = makeApp({ public: true });
    const document = { '@context': { foaf: 'http://xmlns.com/foaf/0.1/' }, '@id': '#me', 'foaf:name': 'Alice' };
    await app.request('/card', { method: 'PUT', headers: { 'Content-Type': 'application/ld+json' }, body: JSON.stringify(document) });
    const response = await patch(app, '/card', { contentType: 'application/sparql-update', body: 'PREFIX foaf: <http://xmlns.com/foaf/0.1/> INSERT DATA { <#me> foaf:nick "ali" }' });
    expect(response.status).toBe(204);
    const stored = await app.storage.get('/card');
    expect(stored?.meta.contentType).toBe('application/ld+json');
    const body = JSON.parse(await new Response(stored!.body).text());
    expect(body).toMatchObject({ '@context': { foaf: 'http://xmlns.com/foaf/0.1/' }, '@id': '#me', 'foaf:name': 'Alice', 'foaf:nick': 'ali' });
  });

  it('keeps an extension-less Turtle resource in Turtle, with its prefixes, blank nodes inline and labels short', async () => {
    const app = makeApp({ conneg: true, public: true });
    const source = '@prefix foaf: <http://xmlns.com/foaf/0.1/>.\n<#me> foaf:name "Alice"; foaf:knows [ foaf:name "Bob" ], _:shared. <#you> foaf:knows _:shared.\n';
    expect((await app.request('/card', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: source })).status).toBe(201);
    for (let i = 0; i < 10; i++) {
      const response = await patch(app, '/card', { contentType: 'application/sparql-update', body: `PREFIX foaf: <http://xmlns.com/foaf/0.1/> INSERT DATA { <#me> foaf:nick "n${i}" }` });
      expect(response.status).toBe(204);
    }
    const stored = await app.storage.get('/card');
    expect(stored?.meta.contentType).toBe('text/turtle');
    const text = await new Response(stored!.body).text();
    expect(text).toContain('@prefix foaf: <http://xmlns.com/foaf/0.1/>.');
    expect(text).toContain('[ foaf:name "Bob" ]');
    // The shared blank node keeps a label; re-parsing ten times must not have made it longer.
    expect(text.match(/_:\S+?(?=[\s.;,])/g)).toEqual(['_:b1', '_:b1']);
    const nicks = Array.from({ length: 10 }, (_, i) => `"n${i}"`).join(', ');
    expect(await canonical(await parseRdf(text, 'text/turtle', `${BASE}/card`))).toBe(
      await canonical(await parseRdf(`${source}<#me> <http://xmlns.com/foaf/0.1/nick> ${nicks}.`, 'text/turtle', `${BASE}/card`)),
    );
  });

  it('honours If-Match', async () => {
    const app = await setup();
    const etag = (await app.request('/doc.ttl', { method: 'HEAD' })).headers.get('etag')!;
    const insert = sparql('INSERT DATA { <#a> ex:x 1 }');
    expect((await patch(app, '/doc.ttl', insert, { 'If-Match': '"stale"' })).status).toBe(412);
    expect((await patch(app, '/doc.ttl', insert, { 'If-Match': etag })).status).toBe(204);
    expect((await patch(app, '/doc.ttl', insert, { 'If-Match': etag })).status).toBe(412);
  });

  it('refuses bodies over the size limit (413)', async () => {
    const app = makeApp({ conneg: true, public: true, maxBodySize: '1KB' });
    const big = sparql(`INSERT DATA { <#a> ex:x "${'x'.repeat(2000)}" }`);
    expect((await patch(app, '/big', big)).status).toBe(413);
    expect(await app.storage.head('/big')).toBeNull();
  });

  it('refuses a where clause too expensive to evaluate (422) and changes nothing', async () => {
    const app = makeApp({ conneg: true, public: true });
    const triples = Array.from({ length: 200 }, (_, i) => `<#s${i}> <http://example.org/p> ${i}.`).join('\n');
    expect((await app.request('/big.ttl', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: triples })).status).toBe(201);
    const before = await graphOf(app, '/big.ttl');
    // 200 × 200 × 200 candidate combinations before the last pattern can reject them.
    const response = await patch(app, '/big.ttl', sparql('DELETE { ?a ?b ?c } WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?a ?e ?i . ?c ?c ?c }'));
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ type: expect.stringContaining('patch-too-complex') });
    expect(await graphOf(app, '/big.ttl')).toBe(before);
  });

  it('keeps all 50 of 50 concurrent inserts', async () => {
    const app = await setup();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) => patch(app, '/doc.ttl', n3(`_:p a solid:InsertDeletePatch; solid:inserts { <#a> ex:item ${i}. }.`))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(204));
    const items = Array.from({ length: 50 }, (_, i) => `<#a> <http://example.org/item> ${i}.`).join('\n');
    expect(await graphOf(app, '/doc.ttl')).toBe(await expected(START + items));
  });
});

describe('PATCH against a running svc', () => {
  it('keeps all 50 of 50 concurrent inserts sent over HTTP, in the Turtle file on disk', async () => {
    const svc = await startSvc(['--public', '--conneg']);
    try {
      const url = `${svc.base}/list.ttl`;
      expect((await fetch(url, { method: 'PUT', headers: { 'Content-Type': 'text/turtle' }, body: '<#a> <http://example.org/name> "A".' })).status).toBe(201);
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => fetch(url, { method: 'PATCH', headers: { 'Content-Type': 'application/sparql-update' }, body: `INSERT DATA { <#a> <http://example.org/item> ${i} }` })),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(204));
      const onDisk = await readFile(join(svc.root, 'list.ttl'), 'utf8');
      const items = Array.from({ length: 50 }, (_, i) => `<#a> <http://example.org/item> ${i}.`).join('\n');
      expect(await canonical(await parseRdf(onDisk, 'text/turtle', url))).toBe(await canonical(await parseRdf(`<#a> <http://example.org/name> "A".\n${items}`, 'text/turtle', url)));
    } finally {
      await svc.stop();
    }
  }, 60_000);
});
