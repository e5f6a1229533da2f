import { Parser, Store, type Quad } from 'n3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRdf, parseRdfDocument } from '../../src/rdf/convert.ts';
import { cooperation, TEXT_SLICE_CHARS } from '../../src/rdf/cooperative.ts';
import { parseN3Patch } from '../../src/rdf/n3-patch.ts';
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
    expect(relabelBlankNodes(document.quads).map(String)).toEqual(relabelBlankNodes(reference).map(String));
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
