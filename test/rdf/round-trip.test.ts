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

  it('keeps named graphs in JSON-LD and refuses to flatten them into Turtle', async () => {
    const document = { '@context': { ex: 'http://example.org/' }, '@id': '#g', '@graph': [{ '@id': '#in', 'ex:p': 'v' }] };
    const quads = await parseRdf(JSON.stringify(document), 'application/ld+json', BASE);
    expect(quads.some((q) => q.graph.termType === 'NamedNode')).toBe(true);
    const again = await parseRdf(await serializeQuads(quads, 'application/ld+json', BASE), 'application/ld+json', BASE);
    expect(await canonical(again)).toBe(await canonical(quads));
    await expect(serializeQuads(quads, 'text/turtle', BASE)).rejects.toMatchObject({ status: 406 });
  });
});
