import { DataFactory, Parser, Store, type Quad } from 'n3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRdf, parseRdfDocument, serializeQuads } from '../../src/rdf/convert.ts';
import { cooperation, TEXT_SLICE_CHARS } from '../../src/rdf/cooperative.ts';
import { rdfLimitsOf } from '../../src/rdf/limits.ts';
import { parseN3Patch } from '../../src/rdf/n3-patch.ts';
import { appendTriples } from '../../src/rdf/append.ts';
import { storeInSlices } from '../../src/rdf/store-slices.ts';
import { applyPatch } from '../../src/rdf/patch-apply.ts';
import { relabelBlankNodes, writeTurtle } from '../../src/rdf/turtle-writer.ts';
import { validateAclDocument } from '../../src/wac/acl-document.ts';

const BASE = 'http://pod.test/doc';
const repeat = (count: number, make: (index: number) => string) => Array.from({ length: count }, (_, index) => make(index)).join('\n');

/** Every token kind n3 reads, many times over, so slice boundaries fall inside strings, names, numbers and characters of two UTF-16 units. */
const TURTLE = `@prefix ex: <http://ex.test/> .\nPREFIX foaf: <http://xmlns.com/foaf/0.1/>\n${repeat(
  1200,
  (i) => `<#s${i}> a ex:Thing ; foaf:name "name ${i} 😀 é"@en , """long\n${'x'.repeat(i % 40)}"""^^ex:text ; ex:n ${i}.5e${i % 3} , -${i} , true ; ex:list ( ex:a${i} [ ex:p "in ${i}" ] ) . # comment ${i}`,
)}`;

describe('cooperative parsing and writing', () => {
  afterEach(() => vi.restoreAllMocks());

  it('parses a large Turtle body in slices to the same graph as one synchronous parse', async () => {
    expect(TURTLE.length).toBeGreaterThan(4 * TEXT_SLICE_CHARS);
    const pause = vi.spyOn(cooperation, 'pause');
    const document = await parseRdfDocument(TURTLE, 'text/turtle', BASE);
    expect(pause.mock.calls.length).toBeGreaterThanOrEqual(Math.floor(TURTLE.length / TEXT_SLICE_CHARS));
    expect(document.prefixes).toEqual({ ex: 'http://ex.test/', foaf: 'http://xmlns.com/foaf/0.1/' });
    const reference = new Parser({ format: 'text/turtle', baseIRI: BASE }).parse(TURTLE);
    // Both parses meet the blank nodes in the same order.
    expect((await relabelBlankNodes(document.quads)).map(String)).toEqual((await relabelBlankNodes(reference)).map(String));
  });

  it('parses a small body without pausing', async () => {
    const pause = vi.spyOn(cooperation, 'pause');
    expect(await parseRdf('<#a> <http://ex.test/p> "x" .', 'text/turtle', BASE)).toHaveLength(1);
    expect(pause).not.toHaveBeenCalled();
  });

  it('reports the line of a syntax error near the end of a large body', async () => {
    const broken = `${TURTLE}\n<#bad> <#p> "unterminated .`;
    const lines = broken.split('\n').length;
    await expect(parseRdf(broken, 'text/turtle', BASE)).rejects.toThrow(expect.objectContaining({ status: 400, extra: expect.objectContaining({ line: lines }) }));
  });

  it('writes a large graph as Turtle in slices, and it reads back the same', async () => {
    const quads = (await parseRdf(TURTLE, 'text/turtle', BASE)).filter((q) => q.subject.termType !== 'BlankNode' && q.object.termType !== 'BlankNode');
    const pause = vi.spyOn(cooperation, 'pause');
    const written = await writeTurtle(quads, BASE, { ex: 'http://ex.test/' });
    expect(pause.mock.calls.length).toBeGreaterThan(1);
    const ids = (graph: Quad[]) => graph.map((q) => (q as Quad & { id: string }).id).sort();
    expect(ids(new Parser({ baseIRI: BASE }).parse(written))).toEqual(ids(quads));
  });

  it('applies a large N3 Patch in slices', async () => {
    const patch = `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:p a solid:InsertDeletePatch; solid:inserts { ${repeat(5000, (i) => `<#s${i}> <http://ex.test/p> "v${i}".`)} }.`;
    const pause = vi.spyOn(cooperation, 'pause');
    const store = new Store();
    await applyPatch(store, [await parseN3Patch(patch, BASE)]);
    expect(pause.mock.calls.length).toBeGreaterThan(1);
    expect(store.size).toBe(5000);
    expect(store.has(store.getQuads(`${BASE}#s4999`, null, null, null)[0]!)).toBe(true);
  });

  it('reads the authorizations of a large ACL in slices, and still refuses a bad one among them', async () => {
    const authorization = (i: number) => `<#r${i}> a acl:Authorization; acl:agent <https://x.test/${i}#me>; acl:accessTo <doc>; acl:mode acl:Read.`;
    const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n${repeat(1000, authorization)}`;
    const pause = vi.spyOn(cooperation, 'pause');
    await validateAclDocument(acl, 'text/turtle', '/alice/doc.acl');
    expect(pause.mock.calls.length).toBeGreaterThan(1);
    await expect(validateAclDocument(`${acl}\n<#bad> a acl:Authorization; acl:accessTo <doc>.`, 'text/turtle', '/alice/doc.acl')).rejects.toThrow(expect.objectContaining({ status: 400 }));
  });
});

describe('large graphs, in slices', () => {
  afterEach(() => vi.restoreAllMocks());
  const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
  const longList = (items: number) => `<#r> <http://ex/p> (${Array.from({ length: items }, (_, i) => `"${i}"`).join(' ')}) .`;
  /** The items of the list at <#r> <http://ex/p>, followed through rdf:first and rdf:rest. */
  const itemsOf = (quads: readonly Quad[]): string[] => {
    const store = new Store(quads as Quad[]);
    const items: string[] = [];
    let node = store.getObjects(`${BASE}#r`, 'http://ex/p', null)[0]!;
    while (node.value !== `${RDF}nil`) {
      items.push(store.getObjects(node, `${RDF}first`, null)[0]!.value);
      node = store.getObjects(node, `${RDF}rest`, null)[0]!;
    }
    return items;
  };

  it('checks the nesting of a list of 8,000 items with pauses, and writes it back as Turtle, JSON-LD and N-Triples to the same list', async () => {
    const pause = vi.spyOn(cooperation, 'pause');
    const turtle = longList(8000);
    const document = await parseRdfDocument(turtle, 'text/turtle', BASE);
    expect(pause.mock.calls.length).toBeGreaterThanOrEqual(4);
    const expected = Array.from({ length: 8000 }, (_, i) => String(i));
    expect(itemsOf(document.quads)).toEqual(expected);
    for (const type of ['text/turtle', 'application/ld+json', 'application/n-triples']) {
      pause.mockClear();
      const text = await serializeQuads(document.quads, type, BASE);
      expect(pause.mock.calls.length, type).toBeGreaterThanOrEqual(5);
      // Still one `( … )` in Turtle, not 16,000 triples of rdf:first and rdf:rest (15 times the size).
      if (type === 'text/turtle') expect(text.length).toBeLessThan(turtle.length * 1.2);
      // Full IRIs make the JSON-LD larger than the 4 MB parsed by default.
      expect(itemsOf(await parseRdf(text, type, BASE, rdfLimitsOf(64 * 1024 * 1024))), type).toEqual(expected);
    }
  }, 60_000);

  it('writes a large graph as flat JSON-LD that reads back to the same triples: types, languages, datatypes, native numbers and booleans, named graphs', async () => {
    const turtle = repeat(
      1500,
      (i) => `<#s${i}> a <http://ex/T> ; <http://ex/name> "n ${i}"@en , "plain ${i}" ; <http://ex/n> ${i} , ${i}.5 , true , "${i}"^^<http://ex/custom> ; <http://ex/o> <#s${(i + 1) % 1500}> .`,
    );
    const quads = await parseRdf(turtle, 'text/turtle', BASE);
    expect(quads.length).toBeGreaterThan(5000);
    const json = await serializeQuads(quads, 'application/ld+json', BASE);
    const nodes = JSON.parse(json) as Record<string, unknown>[];
    expect(nodes[0]).toMatchObject({ '@id': `${BASE}#s0`, '@type': ['http://ex/T'], 'http://ex/n': [{ '@value': 0 }, { '@value': '0.5', '@type': 'http://www.w3.org/2001/XMLSchema#decimal' }, { '@value': true }, { '@value': '0', '@type': 'http://ex/custom' }] });
    const back = await parseRdf(json, 'application/ld+json', BASE);
    expect(back.map(String).sort()).toEqual(quads.map(String).sort());
    const named = [...quads.slice(0, 10), ...quads.slice(0, 5001).map((q) => DataFactory.quad(q.subject, q.predicate, q.object, DataFactory.namedNode('http://ex/g')))];
    const namedBack = await parseRdf(await serializeQuads(named, 'application/ld+json', BASE), 'application/ld+json', BASE);
    expect(namedBack.map(String).sort()).toEqual(named.map(String).sort());
  }, 60_000);

  it('appends for a caller who may only append in slices: the result is parsed again, indexed and compared with pauses beyond the parse', async () => {
    const text = repeat(20_000, (i) => `<#s${i}> <http://ex/p> "v${i}" .`) + '\n';
    const store = await storeInSlices(await parseRdf(text, 'text/turtle', BASE));
    const added = DataFactory.quad(DataFactory.namedNode(`${BASE}#new`), DataFactory.namedNode('http://ex/p'), DataFactory.literal('appended'));
    store.addQuad(added);
    const line = `<${BASE}#new> <http://ex/p> "appended" .\n`;
    const pause = vi.spyOn(cooperation, 'pause');
    await parseRdfDocument(text + line, 'text/turtle', BASE);
    const parsing = pause.mock.calls.length;
    pause.mockClear();
    expect(await appendTriples(text, 'text/turtle', BASE, store, [added], rdfLimitsOf(4 * 1024 * 1024))).toBe(text + line);
    // Indexing 20,001 triples and comparing them each take dozens of slices.
    expect(pause.mock.calls.length).toBeGreaterThanOrEqual(parsing + 40);
  }, 60_000);
});
