import { describe, expect, it } from 'vitest';
import { parseRdf, parseRdfDocument, serializeQuads } from '../../src/rdf/convert.ts';
import { canonical } from './canonical.ts';

const BASE = 'http://pod.test/alice/doc';
const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** JSON-LD documents covering what a conversion could lose. */
const CORPUS: Record<string, unknown> = {
  'relative IRIs and prefixes': {
    '@context': { foaf: 'http://xmlns.com/foaf/0.1/', knows: { '@id': 'foaf:knows', '@type': '@id' } },
    '@id': '#me',
    '@type': 'foaf:Person',
    'foaf:name': 'Alice',
    knows: ['../bob/card#me', 'other#them', '/root#x'],
  },
  'datatypes and native values': {
    '@context': { ex: 'http://example.org/' },
    '@id': '#x',
    'ex:int': 42,
    'ex:negative': -7,
    'ex:double': 1.5,
    'ex:bool': false,
    'ex:date': { '@value': '2024-02-29', '@type': `${XSD}date` },
    'ex:paddedInt': { '@value': '007', '@type': `${XSD}integer` },
    'ex:decimal': { '@value': '1.50', '@type': `${XSD}decimal` },
    'ex:custom': { '@value': 'abc', '@type': 'http://example.org/myType' },
    'ex:json': { '@value': { a: [1, 2] }, '@type': '@json' },
  },
  'language tags': {
    '@context': { ex: 'http://example.org/' },
    '@id': '#label',
    'ex:label': [
      { '@value': 'colour', '@language': 'en-GB' },
      { '@value': 'color', '@language': 'en-us' },
      { '@value': 'Farbe', '@language': 'de' },
      'no language',
    ],
  },
  'blank nodes, shared and nested': {
    '@context': { ex: 'http://example.org/' },
    '@graph': [
      { '@id': '#a', 'ex:address': { '@id': '_:addr', 'ex:city': 'Paris', 'ex:geo': { 'ex:lat': 48.85 } } },
      { '@id': '#b', 'ex:address': { '@id': '_:addr' } },
      { '@id': '_:loop', 'ex:self': { '@id': '_:loop' } },
    ],
  },
  lists: {
    '@context': { ex: 'http://example.org/' },
    '@id': '#lists',
    'ex:steps': { '@list': ['one', 2, { '@id': '#three' }, { '@list': ['nested'] }] },
    'ex:empty': { '@list': [] },
  },
  'strings that need escaping': {
    '@context': { ex: 'http://example.org/' },
    '@id': '#s',
    'ex:text': 'line one\nline "two"\ttabbed \\ backslash — ünïcödé 🚀',
  },
  'several subjects and rdf:type': {
    '@context': { ex: 'http://example.org/', rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#' },
    '@graph': [
      { '@id': 'http://other.example/x', '@type': ['ex:A', 'ex:B'] },
      { '@id': '#y', 'rdf:type': { '@value': 'a literal type' } },
    ],
  },
};

describe('JSON-LD -> Turtle -> JSON-LD keeps every triple', () => {
  for (const [name, document] of Object.entries(CORPUS)) {
    it(name, async () => {
      const original = await parseRdf(JSON.stringify(document), 'application/ld+json', BASE);
      expect(original.length).toBeGreaterThan(0);
      const turtle = await serializeQuads(original, 'text/turtle', BASE);
      const fromTurtle = await parseRdfDocument(turtle, 'text/turtle', BASE);
      const jsonLd = await serializeQuads(fromTurtle.quads, 'application/ld+json', BASE, fromTurtle);
      const back = await parseRdf(jsonLd, 'application/ld+json', BASE);
      expect(await canonical(back)).toBe(await canonical(original));
      const nTriples = await serializeQuads(original, 'application/n-triples', BASE);
      expect(await canonical(await parseRdf(nTriples, 'application/n-triples', BASE))).toBe(await canonical(original));
    });
  }

  it('writes readable forms: relative IRIs and prefixes in Turtle, compacted JSON-LD', async () => {
    const original = await parseRdfDocument(JSON.stringify(CORPUS['relative IRIs and prefixes']), 'application/ld+json', BASE);
    const turtle = await serializeQuads(original.quads, 'text/turtle', BASE, { prefixes: { foaf: 'http://xmlns.com/foaf/0.1/' } });
    expect(turtle).toContain('<#me>');
    expect(turtle).toContain('foaf:name');
    const jsonLd = JSON.parse(await serializeQuads(original.quads, 'application/ld+json', BASE, original));
    expect(jsonLd['@id']).toBe('#me');
    expect(jsonLd['foaf:name']).toBe('Alice');
  });

  it('writes Turtle with inline lists and blank nodes, and labels that stay short however often it is re-parsed', async () => {
    const source = `@prefix ex: <http://example.org/>.
<#a> ex:knows [ ex:name "Bob"; ex:geo [ ex:lat 1.5 ] ], _:shared; ex:list (1 [ ex:x 2 ] (3 "x"@en) ()); ex:empty ().
<#b> ex:knows _:shared. _:loop ex:self _:loop. _:c1 ex:next _:c2. _:c2 ex:back _:c1. [] ex:p 1.
<#c> ex:notAList _:n. _:n <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1; <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> (); ex:extra 2.
`;
    const original = await parseRdf(source, 'text/turtle', BASE);
    const prefixes = { ex: 'http://example.org/' };
    const first = await serializeQuads(original, 'text/turtle', BASE, { prefixes });
    expect(first).toContain('ex:list (1 [ ex:x 2 ] (3 "x"@en) ())');
    expect(first).toContain('ex:geo [ ex:lat 1.5 ]');
    // Each parse prefixes blank node labels; writing must not let them grow from one PATCH to the next.
    let text = first;
    for (let round = 0; round < 5; round++) {
      const quads = await parseRdf(text, 'text/turtle', BASE);
      expect(await canonical(quads)).toBe(await canonical(original));
      text = await serializeQuads(quads, 'text/turtle', BASE, { prefixes });
      const labels = [...text.matchAll(/_:([^\s.;,\]]+)/g)].map((match) => match[1]);
      expect(labels.length).toBeGreaterThan(0);
      expect(labels.filter((label) => !/^b\d+$/.test(label!))).toEqual([]);
    }
  });

  it('writes a chain of 20,000 blank nodes as Turtle without running out of stack', async () => {
    const chain = Array.from({ length: 20000 }, (_, i) => `_:n${i} <http://example.org/next> _:n${i + 1} .`).join('\n');
    const original = await parseRdf(`<#start> <http://example.org/next> _:n0 .\n${chain}`, 'text/turtle', BASE);
    const back = await parseRdf(await serializeQuads(original, 'text/turtle', BASE), 'text/turtle', BASE);
    // Canonicalizing 20,000 blank nodes is too costly; walking the chain shows the same graph.
    expect(back.length).toBe(original.length);
    const next = new Map(back.map((q) => [`${q.subject.termType}:${q.subject.value}`, q.object]));
    const visited = new Set<string>();
    for (let node = next.get(`NamedNode:${BASE}#start`); node; node = next.get(`BlankNode:${node.value}`)) visited.add(node.value);
    expect(visited.size).toBe(20001);
  });

  it('keeps named graphs in JSON-LD and refuses to flatten them into Turtle', async () => {
    const document = { '@context': { ex: 'http://example.org/' }, '@id': '#g', '@graph': [{ '@id': '#in', 'ex:p': 'v' }] };
    const quads = await parseRdf(JSON.stringify(document), 'application/ld+json', BASE);
    expect(quads.some((q) => q.graph.termType === 'NamedNode')).toBe(true);
    const again = await parseRdf(await serializeQuads(quads, 'application/ld+json', BASE), 'application/ld+json', BASE);
    expect(await canonical(again)).toBe(await canonical(quads));
    await expect(serializeQuads(quads, 'text/turtle', BASE)).rejects.toMatchObject({ status: 406 });
  });
});
