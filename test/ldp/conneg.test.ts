import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { canonical } from '../rdf/canonical.ts';
import { BASE, makeApp } from '../support/app.ts';
import { podWorld } from '../wac/pods.ts';

const TURTLE_DOC = '@prefix foaf: <http://xmlns.com/foaf/0.1/>.\n<#me> a foaf:Person; foaf:name "Alice"@en; foaf:age 42; foaf:knows [ foaf:name "Bob" ].\n';
const JSON_LD_DOC = JSON.stringify({ '@context': { foaf: 'http://xmlns.com/foaf/0.1/' }, '@id': '#me', 'foaf:name': { '@value': 'Alice', '@language': 'en' }, 'foaf:age': 42 });

async function put(app: ReturnType<typeof makeApp>, path: string, type: string, body: string) {
  return app.request(path, { method: 'PUT', headers: { 'Content-Type': type }, body });
}

describe('content negotiation with --conneg', () => {
  const cases: [string, string][] = [
    ['', 'text/turtle'],
    ['*/*', 'text/turtle'],
    ['application/ld+json', 'application/ld+json'],
    ['text/turtle', 'text/turtle'],
    ['application/n-triples', 'application/n-triples'],
    ['text/turtle;q=0.5, application/ld+json;q=0.9', 'application/ld+json'],
    ['application/ld+json;q=0.2, text/*;q=0.8', 'text/turtle'],
    ['text/html;q=0.8, text/turtle', 'text/turtle'],
  ];
  for (const [accept, type] of cases) {
    it(`Accept "${accept}" on a Turtle resource gets ${type} with the same triples`, async () => {
      const app = makeApp({ conneg: true, public: true });
      expect((await put(app, '/card', 'text/turtle', TURTLE_DOC)).status).toBe(201);
      const response = await app.request('/card', { headers: accept ? { Accept: accept } : {} });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      const quads = await parseRdf(await response.text(), type, `${BASE}/card`);
      expect(await canonical(quads)).toBe(await canonical(await parseRdf(TURTLE_DOC, 'text/turtle', `${BASE}/card`)));
    });
  }

  it('serves the stored bytes, unconverted, to a client that takes anything or likes several forms equally', async () => {
    const app = makeApp({ conneg: true, public: true });
    await put(app, '/card', 'text/turtle', TURTLE_DOC);
    await put(app, '/data', 'application/ld+json', JSON_LD_DOC);
    for (const accept of [null, '*/*', 'text/turtle, application/ld+json', 'text/html;q=0.8, */*;q=0.5']) {
      const headers: Record<string, string> = accept === null ? {} : { Accept: accept };
      const turtle = await app.request('/card', { headers });
      expect(turtle.headers.get('content-type')).toBe('text/turtle');
      expect(await turtle.text()).toBe(TURTLE_DOC);
      const jsonLd = await app.request('/data', { headers });
      expect(jsonLd.headers.get('content-type')).toBe('application/ld+json');
      expect(await jsonLd.text()).toBe(JSON_LD_DOC);
    }
    // q-values still decide: the data browser prefers Turtle (q=1) over JSON-LD (q=0.9) and HTML (q=0.8).
    const mashlib = 'image/*;q=0.9, */*;q=0.1, application/rdf+xml;q=0.9, application/xhtml+xml;q=0.8, text/html;q=0.8, text/n3, text/turtle, application/ld+json;q=0.9';
    expect((await app.request('/data', { headers: { Accept: mashlib } })).headers.get('content-type')).toContain('text/turtle');
    expect((await app.request('/card', { headers: { Accept: 'application/ld+json, text/turtle;q=0.5' } })).headers.get('content-type')).toBe('application/ld+json');
  });

  it('answers container listings and the pod profile as Turtle when the client takes anything', async () => {
    const world = await podWorld(['alice'], { conneg: true });
    await world.as('alice', '/alice/public/a', { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: TURTLE_DOC });
    for (const path of ['/alice/public/', '/alice/']) {
      for (const accept of [null, '*/*', 'text/plain;q=0.8, */*;q=0.5']) {
        const response = await world.as('alice', path, { headers: accept === null ? {} : { accept } });
        expect(response.headers.get('content-type')).toMatch(/^text\/turtle/);
        const quads = await parseRdf(await response.text(), 'text/turtle', BASE + path);
        expect(quads.some((q) => q.predicate.value === 'http://www.w3.org/ns/ldp#contains')).toBe(true);
      }
      const asked = await world.as('alice', path, { headers: { accept: 'application/ld+json' } });
      expect(asked.headers.get('content-type')).toBe('application/ld+json');
    }
    for (const browser of ['text/html,application/xhtml+xml,*/*;q=0.8', 'text/html;q=0.8, */*;q=0.5']) {
      expect((await world.as(null, '/alice/', { headers: { accept: browser } })).headers.get('content-type')).toMatch(/^text\/html/);
    }
  });

  it('answers 406 when nothing fits', async () => {
    const app = makeApp({ conneg: true, public: true });
    await put(app, '/card', 'text/turtle', TURTLE_DOC);
    const response = await app.request('/card', { headers: { Accept: 'image/png, text/turtle;q=0' } });
    expect(response.status).toBe(406);
    expect((await response.json()).detail).toContain('text/turtle');
  });

  it('negotiates by stored type, not by name: an extension-less Turtle resource and a .ttl-named JSON-LD one', async () => {
    const app = makeApp({ conneg: true, public: true });
    await put(app, '/noext', 'text/turtle', TURTLE_DOC);
    await put(app, '/looks-like.ttl', 'application/ld+json', JSON_LD_DOC);
    const asJsonLd = await app.request('/noext', { headers: { Accept: 'application/ld+json' } });
    expect(asJsonLd.headers.get('content-type')).toContain('application/ld+json');
    expect((await parseRdf(await asJsonLd.text(), 'application/ld+json', `${BASE}/noext`)).length).toBe(5);
    const asTurtle = await app.request('/looks-like.ttl', { headers: { Accept: 'text/turtle' } });
    expect(asTurtle.headers.get('content-type')).toContain('text/turtle');
    expect(await asTurtle.text()).toContain('"Alice"@en');
  });

  it('lists containers as Turtle too', async () => {
    const app = makeApp({ conneg: true, public: true });
    await put(app, '/box/a', 'text/turtle', TURTLE_DOC);
    const response = await app.request('/box/', { headers: { Accept: 'text/turtle' } });
    expect(response.status).toBe(200);
    const quads = await parseRdf(await response.text(), 'text/turtle', `${BASE}/box/`);
    expect(quads.some((q) => q.predicate.value === 'http://www.w3.org/ns/ldp#contains' && q.object.value === `${BASE}/box/a`)).toBe(true);
  });
});

describe('the pod profile (an HTML page with a JSON-LD island)', () => {
  it('answers RDF requests with the island\'s graph and HTML requests with the page', async () => {
    const world = await podWorld(['alice'], { conneg: true });
    const page = await (await world.as(null, '/alice/index.html')).text();
    const island = /<script type="application\/ld\+json">([\s\S]*?)<\/script>/.exec(page)![1]!;
    const islandQuads = await parseRdf(island, 'application/ld+json', `${BASE}/alice/`);
    expect(islandQuads.length).toBeGreaterThan(5);
    for (const [accept, type] of [['text/turtle', 'text/turtle'], ['application/n-triples', 'application/n-triples'], ['text/html;q=0.5, text/turtle', 'text/turtle'], ['', 'text/turtle'], ['application/ld+json', 'application/ld+json']]) {
      const response = await world.as(null, '/alice/', { headers: accept ? { accept } : {} });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      const served = await canonical(await parseRdf(await response.text(), type!, `${BASE}/alice/`));
      for (const line of (await canonical(islandQuads)).split('\n').filter(Boolean)) expect(served).toContain(line);
    }
    const html = await world.as(null, '/alice/', { headers: { accept: 'text/html, text/turtle;q=0.9' } });
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await world.as(null, '/alice/', { headers: { accept: 'image/png' } })).status).toBe(406);
  });
});

describe('without --conneg', () => {
  it('serves only JSON-LD and refuses Turtle bodies with a 415 that says how to enable them', async () => {
    const app = makeApp({ public: true });
    const refused = await put(app, '/card', 'text/turtle', TURTLE_DOC);
    expect(refused.status).toBe(415);
    expect((await refused.json()).detail).toContain('--conneg');
    await put(app, '/card', 'application/ld+json', JSON_LD_DOC);
    const notAcceptable = await app.request('/card', { headers: { Accept: 'text/turtle' } });
    expect(notAcceptable.status).toBe(406);
    expect((await notAcceptable.json()).detail).toContain('--conneg');
    expect((await app.request('/card', { headers: { Accept: 'text/turtle, */*;q=0.1' } })).headers.get('content-type')).toContain('application/ld+json');
  });

  it('serves a document stored as Turtle (written with --conneg earlier) as JSON-LD, and lists containers as JSON-LD', async () => {
    const app = makeApp({ public: true });
    await app.storage.put('/box/card', TURTLE_DOC, { contentType: 'text/turtle' });
    for (const accept of [null, '*/*']) {
      const response = await app.request('/box/card', { headers: accept === null ? {} : { Accept: accept } });
      expect(response.headers.get('content-type')).toBe('application/ld+json');
      expect(await canonical(await parseRdf(await response.text(), 'application/ld+json', `${BASE}/box/card`))).toBe(await canonical(await parseRdf(TURTLE_DOC, 'text/turtle', `${BASE}/box/card`)));
      expect((await app.request('/box/', { headers: accept === null ? {} : { Accept: accept } })).headers.get('content-type')).toBe('application/ld+json');
    }
  });
});

describe('malformed and unknown input', () => {
  it('reports the line and column of a Turtle syntax error and stores nothing', async () => {
    const app = makeApp({ conneg: true, public: true });
    const response = await put(app, '/bad', 'text/turtle', '<#a> <#b> <#c> .\n<#d> <#e> <#f> <#g> .\n');
    expect(response.status).toBe(400);
    const problem = await response.json();
    expect(problem).toMatchObject({ line: 2, column: 16 });
    expect(problem.detail).toContain('line 2');
    // A lexer error (unterminated string) names only the token before; the column is the bad token's own.
    const unterminated = await put(app, '/bad', 'text/turtle', '<#a> <#b> <#c> .\n<#d> <#e>   "unterminated .\n');
    expect(await unterminated.json()).toMatchObject({ status: 400, line: 2, column: 13 });
    expect(await app.storage.head('/bad')).toBeNull();
  });

  it('reports the line and column of a JSON syntax error, however the engine words it', async () => {
    const app = makeApp({ public: true });
    const response = await put(app, '/bad', 'application/ld+json', '{\n  "@id": "#a",\n  oops\n}');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ line: 3, column: 3 });
    // V8 words this error without any position ("Unexpected token"), so the position is found by scanning.
    const trailingComma = await put(app, '/bad', 'application/ld+json', '{\n  "@id": "#a",\n  "http://ex/p": [1, ]\n}');
    expect(await trailingComma.json()).toMatchObject({ status: 400, line: 3, column: 22 });
    const unterminated = await put(app, '/bad', 'application/ld+json', '{"@id": "#a"');
    expect(await unterminated.json()).toMatchObject({ status: 400, line: 1, column: 13 });
    expect(await app.storage.head('/bad')).toBeNull();
  });

  it('refuses unknown remote contexts with a clear 400, and uses bundled ones without fetching', async () => {
    const app = makeApp({ public: true });
    const unknown = await put(app, '/x', 'application/ld+json', JSON.stringify({ '@context': 'https://example.org/ctx.jsonld', name: 'x' }));
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).type).toBe('urn:svc:problem:unknown-jsonld-context');
    const note = { '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'], id: '#note', type: 'Note', content: 'hi', publicKeyPem: 'PEM' };
    expect((await put(app, '/note', 'application/ld+json', JSON.stringify(note))).status).toBe(201);
    const client = { '@context': 'https://www.w3.org/ns/solid/oidc-context.jsonld', client_id: '#app', client_name: 'App', redirect_uris: ['https://app.example/cb'] };
    expect((await put(app, '/client', 'application/ld+json', JSON.stringify(client))).status).toBe(201);
  });
});
