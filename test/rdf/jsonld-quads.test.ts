import fc from 'fast-check';
import jsonld from 'jsonld';
import { DataFactory, type Quad, type Term } from 'n3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cooperation } from '../../src/rdf/cooperative.ts';
import { MAX_JSONLD_VALUES_PER_PIECE, parseJsonLd } from '../../src/rdf/jsonld.ts';
import { canonical } from './canonical.ts';

const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;
const BASE = 'http://pod.test/doc';

interface LibraryTerm {
  termType: string;
  value: string;
  datatype?: { value: string };
  language?: string;
}

function fromLibrary(term: LibraryTerm): Term {
  if (term.termType === 'NamedNode') return namedNode(term.value);
  if (term.termType === 'BlankNode') return blankNode(term.value.replace(/^_:/, ''));
  if (term.termType === 'Literal') return term.language ? literal(term.value, term.language) : literal(term.value, namedNode(term.datatype!.value));
  return defaultGraph();
}

const keyOf = (q: Quad) => JSON.stringify([q.subject, q.predicate, q.object, q.graph].map((term) => [term.termType, term.value, 'language' in term ? term.language : '', 'datatype' in term ? term.datatype.value : '']));

/**
 * The quads jsonld.js's own toRDF gives: the reference the linear conversion must agree with. A dataset is a
 * set, but toRDF can emit a quad twice (seen with blank-node graph names inside lists), so repeats are dropped.
 */
async function referenceQuads(document: object): Promise<Quad[]> {
  const dataset = (await jsonld.toRDF(document, { base: BASE } as jsonld.Options.ToRdf)) as unknown as { subject: LibraryTerm; predicate: LibraryTerm; object: LibraryTerm | null; graph: LibraryTerm }[];
  const quads = dataset
    .filter((q) => q.object)
    .map((q) => quad(fromLibrary(q.subject) as Quad['subject'], fromLibrary(q.predicate) as Quad['predicate'], fromLibrary(q.object!) as Quad['object'], fromLibrary(q.graph) as Quad['graph']));
  return [...new Map(quads.map((q) => [keyOf(q), q])).values()];
}

/** JSON values of a document, as the server counts them against MAX_JSONLD_VALUES_PER_PIECE. */
const jsonValues = (value: unknown): number => 1 + (typeof value === 'object' && value !== null ? (Array.isArray(value) ? value : Object.values(value)).reduce((sum: number, child) => sum + jsonValues(child), 0) : 0);

async function expectSameGraph(document: object) {
  const ours = await parseJsonLd(JSON.stringify(document), BASE);
  expect(await canonical(ours.quads)).toBe(await canonical(await referenceQuads(document)));
}

const EX = 'http://ex.test/';

describe('JSON-LD to quads', () => {
  it.each([
    ['values of every kind', { '@id': '#a', [`${EX}p`]: ['s', 1, 2.5, true, 1e21, { '@value': 'x', '@language': 'en' }, { '@value': '3', '@type': 'http://www.w3.org/2001/XMLSchema#double' }, { '@value': { b: [1, { a: 'z' }] }, '@type': '@json' }] }],
    ['types, blank nodes and references', { '@id': '_:x', '@type': [`${EX}T`, '_:t'], [`${EX}knows`]: [{ '@id': '_:y', [`${EX}name`]: 'Y', [`${EX}back`]: { '@id': '_:x' } }, {}, { [`${EX}q`]: 1 }] }],
    ['lists, nested and empty', { '@id': '#l', [`${EX}list`]: [{ '@list': ['a', { '@list': [1, 2] }, { '@id': '#m', [`${EX}p`]: 'm' }] }, { '@list': [] }] }],
    ['reverse properties', { '@id': '#r', '@reverse': { [`${EX}parent`]: [{ '@id': '#c1' }, { '@id': '#c2', [`${EX}p`]: 'c2' }] } }],
    ['named graphs and included nodes', { '@id': '#g', [`${EX}p`]: 'outside', '@graph': [{ '@id': '#in', [`${EX}p`]: 'inside', '@graph': { '@id': '#deeper', [`${EX}p`]: 'deep' } }], '@included': [{ '@id': '#inc', [`${EX}p`]: 'inc' }] }],
    ['a graph without a name', { '@graph': [{ '@id': '#a', [`${EX}p`]: 1 }, { '@id': '#a', [`${EX}p`]: 2 }] }],
    ['a context with prefixes, vocabulary and coercion', { '@context': { '@vocab': EX, ex: EX, when: { '@id': 'ex:when', '@type': 'http://www.w3.org/2001/XMLSchema#date' }, link: { '@type': '@id' } }, '@id': '#c', name: 'n', when: '2020-01-01', link: 'other', 'ex:n': 3 }],
    ['what RDF cannot hold is dropped', [{ '@context': { '@base': null }, '@id': 'relative', [`${EX}p`]: [{ '@id': '#kept', [`${EX}p`]: { '@list': ['x', { '@id': 'relative-item' }] } }] }, { '@context': { '@base': null }, '@id': 'http://ex.test/d', '_:blankProperty': 'dropped', [`${EX}p`]: [{ '@id': 'relative' }, { '@id': 'scheme:absolute' }, { '@list': [{ '@id': 'relative-item' }, 'y'] }], '@graph': { '@id': 'http://ex.test/in', [`${EX}p`]: 'in' } }, { '@context': { '@base': null }, '@id': 'relative-graph', '@graph': { '@id': 'http://ex.test/hidden', [`${EX}p`]: 'skipped' } }]],
    ['duplicates are kept once', [{ '@id': '#d', [`${EX}p`]: ['v', 'v', { '@value': 'v' }] }, { '@id': '#d', [`${EX}p`]: 'v' }]],
  ])('agrees with jsonld.js on %s', async (_, document) => {
    await expectSameGraph(document as object);
  });

  it('agrees with jsonld.js on generated documents', async () => {
    const iri = fc.constantFrom(`${EX}a`, `${EX}b`, '#local', 'http://other.test/x');
    const id = fc.oneof(iri, fc.constantFrom('_:b0', '_:x', '_:y'));
    const property = fc.constantFrom(`${EX}p`, `${EX}q`, `${EX}r`);
    const scalar = fc.oneof(fc.string({ maxLength: 4 }), fc.integer({ min: -5, max: 5 }), fc.constantFrom(0.5, -2.5, true, false));
    const value = fc.oneof(scalar, fc.record({ '@value': fc.string({ maxLength: 3 }), '@language': fc.constantFrom('en', 'de-CH') }));
    const { node } = fc.letrec((tie) => ({
      node: fc.record(
        {
          '@id': id,
          '@type': fc.array(fc.oneof(iri, fc.constant('_:t')), { maxLength: 2 }),
          [`${EX}p`]: fc.array(fc.oneof({ depthSize: 'small' }, value, tie('node'), tie('list')), { maxLength: 4 }),
          [`${EX}q`]: value,
          '@reverse': fc.dictionary(property, fc.array(tie('node'), { maxLength: 2 }), { maxKeys: 1 }),
          '@graph': fc.array(tie('node'), { maxLength: 2 }),
        },
        { requiredKeys: [] },
      ),
      list: fc.record({ '@list': fc.array(fc.oneof({ depthSize: 'small' }, value, tie('node')), { maxLength: 3 }) }),
    }));
    await fc.assert(
      fc.asyncProperty(fc.array(node, { minLength: 1, maxLength: 3 }), async (document) => {
        // Agreement is the point here; a node past the piece limit is refused with 413 (tested below).
        fc.pre(document.every((item) => jsonValues(item) <= MAX_JSONLD_VALUES_PER_PIECE));
        await expectSameGraph(document as object);
      }),
      { numRuns: 40 },
    );
  });

  it('keeps every value of a property with many values, up to the limit of one piece', async () => {
    const values = Array.from({ length: MAX_JSONLD_VALUES_PER_PIECE - 10 }, (_, index) => `v${index}`);
    const { quads } = await parseJsonLd(JSON.stringify({ '@id': '#r', 'http://ex/p': values }), BASE);
    expect(quads).toHaveLength(values.length);
    expect(new Set(quads.map((q) => q.object.value))).toEqual(new Set(values));
  });

  it('refuses with 413 a node too large to expand in one piece', async () => {
    const values = Array.from({ length: 40_000 }, (_, index) => `v${index}`);
    await expect(parseJsonLd(JSON.stringify({ '@id': '#r', 'http://ex/p': values }), BASE)).rejects.toThrow(expect.objectContaining({ status: 413 }));
    await expect(parseJsonLd(JSON.stringify({ '@graph': [{ '@id': '#r', 'http://ex/p': values }] }), BASE)).rejects.toThrow(expect.objectContaining({ status: 413 }));
  });

  describe('a large document, expanded in pieces', () => {
    afterEach(() => vi.restoreAllMocks());
    const node = (index: number) => ({
      '@id': index % 3 === 0 ? `_:shared${index % 7}` : `#n${index % 50}`,
      '@type': 'Thing',
      name: [`n${index}`, { '@value': `${index}`, '@language': 'en' }],
      knows: [{ '@id': `_:shared${index % 5}` }, { name: 'anonymous' }],
      items: [`i${index}`, index],
      when: '2020-01-01',
    });
    const context = { '@vocab': EX, ex: EX, items: { '@id': 'ex:items', '@container': '@list' }, when: { '@id': 'ex:when', '@type': 'http://www.w3.org/2001/XMLSchema#date' }, knows: { '@type': '@id' } };

    it.each([
      ['a top-level @graph with a context', { '@context': context, '@graph': Array.from({ length: 400 }, (_, i) => node(i)) }],
      ['a top-level @graph without a context', { '@graph': Array.from({ length: 200 }, (_, i) => ({ '@context': context, ...node(i) })) }],
      ['a top-level array', Array.from({ length: 200 }, (_, i) => (i % 2 ? { '@context': context, ...node(i) } : { '@context': context, '@graph': [node(i)] }))],
    ])('agrees with jsonld.js on %s, pausing between pieces', async (_, document) => {
      const pause = vi.spyOn(cooperation, 'pause');
      await expectSameGraph(document as object);
      expect(pause.mock.calls.length).toBeGreaterThan(1);
    });
  });
});
