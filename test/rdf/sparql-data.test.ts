import { DataFactory, type Quad } from 'n3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cooperation } from '../../src/rdf/cooperative.ts';
import type { PatchOperation, TriplePattern } from '../../src/rdf/patch-apply.ts';
import { parseDataOnlyUpdate } from '../../src/rdf/sparql-data.ts';
import { parseSparqlUpdate, parseWithSparqljs } from '../../src/rdf/sparql-update.ts';
import { canonical } from './canonical.ts';

const { quad } = DataFactory;
const TARGET = 'http://pod.test/dir/doc';

/** Each operation's parts in canonical N-Quads, so graphs that differ only in blank node labels and order compare equal. */
async function comparable(operations: readonly PatchOperation[]): Promise<string[][]> {
  const graph = (patterns: readonly TriplePattern[]) => canonical(patterns.map((p) => quad(p.subject as Quad['subject'], p.predicate as Quad['predicate'], p.object as Quad['object'])));
  return Promise.all(operations.map(async (op) => [await graph(op.where), await graph(op.deletes), await graph(op.inserts)]));
}

describe('SPARQL Update of DATA blocks only, through n3', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['one triple without a final dot', 'INSERT DATA { <#a> <http://ex/p> "x" }'],
    ['one triple with a final dot', 'INSERT DATA { <#a> <http://ex/p> "x" . }'],
    ['a final dot before a comment', 'INSERT DATA { <#a> <http://ex/p> "x" . # done\n}'],
    ['no final dot before a comment', 'insert data {\n <#a> <http://ex/p> 1 # no dot\n}'],
    ['prefixes, base and every literal form', 'PREFIX ex: <http://ex/>\nprefix : <http://default/>\nBASE <http://other.test/base/>\nINSERT DATA { <rel> a ex:T ; ex:p 1, -2.5, 1e3, true, "s"@en-GB, \'q\', """long\n"x" }""", "t"^^ex:type, :d . ex:list ex:p ( 1 "two" ( ) ) }'],
    ['blank nodes inserted', 'INSERT DATA { _:x <http://ex/p> [ <http://ex/q> _:x ] . _:y <http://ex/p> _:x }'],
    ['several operations with declarations between them', 'PREFIX ex: <http://ex/>\nDELETE DATA { <#a> ex:p "old" } ;\nPREFIX ey: <http://ey/>\nINSERT DATA { <#a> ey:p "new", "}" } ;'],
    ['an empty block', 'INSERT DATA { }'],
    ['characters outside the Basic Multilingual Plane', 'INSERT DATA { <#a> <http://ex/p> "😀 \\u00e9 \\U0001F600" }'],
  ])('gives what sparqljs gives for %s', async (_, update) => {
    const ours = await parseDataOnlyUpdate(update, TARGET);
    expect(ours).not.toBeNull();
    expect(await comparable(ours!)).toEqual(await comparable(await parseWithSparqljs(update, TARGET)));
  });

  it.each([
    ['a where clause', 'DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }'],
    ['DELETE WHERE', 'DELETE WHERE { <#a> ?p ?o }'],
    ['a GRAPH block', 'INSERT DATA { GRAPH <#g> { <#a> <#b> <#c> } }'],
    ['blank nodes to delete', 'DELETE DATA { _:x <http://ex/p> "x" }'],
    ['a prefix declared inside the block', 'INSERT DATA { @prefix ex: <http://ex/> . <#a> ex:p 1 }'],
    ['text after the block', 'INSERT DATA { <#a> <#b> 1 } INSERT DATA { <#a> <#b> 2 }'],
  ])('leaves %s to sparqljs', async (_, update) => {
    expect(await parseDataOnlyUpdate(update, TARGET)).toBeNull();
  });

  it('falls back to sparqljs for a small update n3 cannot read, and reports its error', async () => {
    await expect(parseSparqlUpdate('INSERT DATA { <#a> <#b> ?x }', TARGET)).rejects.toThrow(expect.objectContaining({ status: 400 }));
  });

  it('parses a large INSERT DATA in slices and reports the line of an error in one', async () => {
    const triples = Array.from({ length: 5000 }, (_, i) => `<#s${i}> <http://ex/p> "v${i}" .`).join('\n');
    const pause = vi.spyOn(cooperation, 'pause');
    const [operation] = await parseSparqlUpdate(`INSERT DATA {\n${triples}\n}`, TARGET);
    expect(operation!.inserts).toHaveLength(5000);
    expect(pause.mock.calls.length).toBeGreaterThan(1);
    await expect(parseSparqlUpdate(`INSERT DATA {\n${triples}\n<#bad> "x" }`, TARGET)).rejects.toThrow(expect.objectContaining({ status: 400, extra: expect.objectContaining({ line: 5002 }) }));
  });

  it('refuses with 413 an update too large for sparqljs that is not DATA only', async () => {
    const patterns = Array.from({ length: 2000 }, (_, i) => `?s${i} ?p${i} ?o${i} .`).join(' ');
    await expect(parseSparqlUpdate(`DELETE { ?s ?p ?o } WHERE { ${patterns} ?s ?p ?o }`, TARGET)).rejects.toThrow(expect.objectContaining({ status: 413 }));
  });
});
