import { describe, expect, it } from 'vitest';
import { parseRdf } from '../../src/rdf/convert.ts';
import { HTML_GRAPH_LIMITS } from '../../src/rdf/html.ts';
import { BASE, makeApp, type TestApp } from '../support/app.ts';

const FOAF = 'http://xmlns.com/foaf/0.1/';
const PAGE = `<!doctype html>
<html><head><title>Alice</title>
<script type="application/ld+json">{"@id": "#me", "${FOAF}nick": "ali & co"}</script>
<script type="application/ld+json">{"@id": "#broken", </script>
<script type="application/ld+json">{"@context": "https://schema.org/", "@id": "#remote", "name": "needs a remote context"}</script>
<script>var notData = "<b>";</script>
</head>
<body prefix="foaf: ${FOAF}">
<div about="#me" typeof="foaf:Person"><h1 property="foaf:name">Alice</h1>
<a rel="foaf:knows" href="https://bob.example/#me">Bob</a></div>
</body></html>
`;
const XHTML_PAGE = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Card</title></head>
<body><p about="#card" property="http://purl.org/dc/terms/title">A card</p></body></html>
`;
const MASHLIB_ACCEPT = 'image/*;q=0.9, */*;q=0.1, application/rdf+xml;q=0.9, application/xhtml+xml;q=0.8, text/html;q=0.8, text/plain;q=0.5, text/n3, text/turtle, application/ld+json;q=0.9';

async function store(app: TestApp, path: string, type: string, body: string): Promise<void> {
  expect((await app.request(path, { method: 'PUT', headers: { 'content-type': type }, body })).status).toBe(201);
}

/** The triples of an answer as `subject predicate object` lines, sorted. */
async function triples(response: Response, type: string, path: string): Promise<string[]> {
  const quads = await parseRdf(await response.text(), type, BASE + path);
  return quads.map((q) => `${q.subject.value} ${q.predicate.value} ${q.object.value}`).sort();
}

describe('the graph of an HTML page (RDFa and JSON-LD islands)', () => {
  it('is served as JSON-LD when asked for, while HTML (or anything) gets the stored page byte for byte', async () => {
    const app = makeApp({ public: true });
    await store(app, '/alice.html', 'text/html', PAGE);
    for (const accept of [null, '*/*', 'text/html', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8']) {
      const page = await app.request('/alice.html', { headers: accept === null ? {} : { accept } });
      expect(page.headers.get('content-type')).toBe('text/html');
      expect(await page.text()).toBe(PAGE);
    }
    const graph = await app.request('/alice.html', { headers: { accept: 'application/ld+json' } });
    expect(graph.status).toBe(200);
    expect(graph.headers.get('content-type')).toBe('application/ld+json');
    const me = `${BASE}/alice.html#me`;
    // The RDFa and the islands that parse; the broken island and the one that needs a remote context are left out.
    expect(await triples(graph, 'application/ld+json', '/alice.html')).toEqual(
      [
        `${me} http://www.w3.org/1999/02/22-rdf-syntax-ns#type ${FOAF}Person`,
        `${me} ${FOAF}name Alice`,
        `${me} ${FOAF}knows https://bob.example/#me`,
        `${me} ${FOAF}nick ali & co`,
      ].sort(),
    );
    const head = await app.request('/alice.html', { method: 'HEAD', headers: { accept: 'application/ld+json' } });
    expect(head.headers.get('content-type')).toBe('application/ld+json');
  });

  it('is served as Turtle with --conneg (the data browser\'s Accept prefers it to the page) and never as Turtle without', async () => {
    const app = makeApp({ public: true, conneg: true });
    await store(app, '/alice.html', 'text/html', PAGE);
    const turtle = await app.request('/alice.html', { headers: { accept: MASHLIB_ACCEPT } });
    expect(turtle.headers.get('content-type')).toBe('text/turtle; charset=utf-8');
    expect(await triples(turtle, 'text/turtle', '/alice.html')).toContain(`${BASE}/alice.html#me ${FOAF}name Alice`);
    const plain = makeApp({ public: true });
    await store(plain, '/alice.html', 'text/html', PAGE);
    const asked = await plain.request('/alice.html', { headers: { accept: 'text/turtle' } });
    expect(asked.headers.get('content-type')).toBe('text/html');
    expect(await asked.text()).toBe(PAGE);
  });

  it('reads RDFa from XHTML too', async () => {
    const app = makeApp({ public: true, conneg: true });
    await store(app, '/card.xhtml', 'application/xhtml+xml', XHTML_PAGE);
    const graph = await app.request('/card.xhtml', { headers: { accept: 'application/n-triples' } });
    expect(await triples(graph, 'application/n-triples', '/card.xhtml')).toEqual([`${BASE}/card.xhtml#card http://purl.org/dc/terms/title A card`]);
    expect(await (await app.request('/card.xhtml')).text()).toBe(XHTML_PAGE);
  });

  describe('within a budget', () => {
    const pages: [string, string][] = [
      ['has too many elements', `<html><body>${'<p property="http://ex/p">x</p>'.repeat(HTML_GRAPH_LIMITS.elements)}</body></html>`],
      ['has elements nested too deep', `<html><body>${'<div>'.repeat(HTML_GRAPH_LIMITS.depth)}<p about="#a" property="http://ex/p">x</p>${'</div>'.repeat(HTML_GRAPH_LIMITS.depth)}</body></html>`],
      ['has too many JSON-LD islands', `<html><head>${'<script type="application/ld+json">{"@id": "#a", "http://ex/p": "v"}</script>'.repeat(HTML_GRAPH_LIMITS.islands + 1)}</head></html>`],
      ['has too many triples', `<html><body>${`<p about="#a" property="${Array.from({ length: 10 }, (_, i) => `http://ex/p${i}`).join(' ')}">x</p>`.repeat(HTML_GRAPH_LIMITS.triples / 10 + 1)}</body></html>`],
      ['is too large', `<html><body><p about="#a" property="http://ex/p">x</p>${' '.repeat(HTML_GRAPH_LIMITS.bytes)}</body></html>`],
    ];
    for (const [what, page] of pages) {
      it(`refuses the graph of a page that ${what} (406), and serves the page to a client that takes it too`, async () => {
        const app = makeApp({ public: true });
        await store(app, '/big.html', 'text/html', page);
        const refused = await app.request('/big.html', { headers: { accept: 'application/ld+json' } });
        expect(refused.status).toBe(406);
        expect(refused.headers.get('content-type')).toBe('application/problem+json');
        expect((await refused.json()).type).toBe('urn:svc:problem:html-graph-not-available');
        const fallback = await app.request('/big.html', { headers: { accept: 'application/ld+json, */*;q=0.1' } });
        expect(fallback.status).toBe(200);
        expect(fallback.headers.get('content-type')).toBe('text/html');
        expect((await fallback.text()).length).toBe(page.length);
      });
    }

    it('serves the graph of a page just within every limit', async () => {
      const app = makeApp({ public: true });
      const page = `<html><body>${'<div>'.repeat(HTML_GRAPH_LIMITS.depth - 3)}${'<p about="#a" property="http://ex/p">x</p>'.repeat(100)}${'</div>'.repeat(HTML_GRAPH_LIMITS.depth - 3)}</body></html>`;
      await store(app, '/fits.html', 'text/html', page);
      const graph = await app.request('/fits.html', { headers: { accept: 'application/ld+json' } });
      expect(graph.status).toBe(200);
      expect(await triples(graph, 'application/ld+json', '/fits.html')).toEqual([`${BASE}/fits.html#a http://ex/p x`]);
    });
  });
});
