import { describe, expect, it } from 'vitest';
import { parseN3Patch } from '../../src/rdf/n3-patch.ts';
import { patchNeeds } from '../../src/rdf/patch-apply.ts';
import { parseSparqlUpdate } from '../../src/rdf/sparql-update.ts';

const TARGET = 'http://pod.test/doc';
const SOLID = '@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n';

describe('patch parsing', () => {
  it('puts the line and column of a SPARQL syntax error in the problem', async () => {
    await expect(parseSparqlUpdate('INSERT DATA {\n  <#a> <#b> }', TARGET)).rejects.toThrow(expect.objectContaining({ status: 400, extra: expect.objectContaining({ line: 2, column: expect.any(Number) }) }));
  });

  it('puts the line of an N3 syntax error in the problem', async () => {
    await expect(parseN3Patch(`${SOLID}_:p a solid:InsertDeletePatch;\n  solid:inserts { <#a> <#b> "x }.`, TARGET)).rejects.toThrow(expect.objectContaining({ status: 400, extra: expect.objectContaining({ line: 3 }) }));
  });

  it('resolves relative IRIs against the target and keeps literal types', async () => {
    const [operation] = await parseSparqlUpdate('INSERT DATA { <#a> <http://ex/p> 7, false, "t"@de }', TARGET);
    expect(operation!.inserts.map((t) => [t.subject.value, t.object.value, t.object.termType === 'Literal' ? t.object.datatype.value : ''])).toEqual([
      [`${TARGET}#a`, '7', 'http://www.w3.org/2001/XMLSchema#integer'],
      [`${TARGET}#a`, 'false', 'http://www.w3.org/2001/XMLSchema#boolean'],
      [`${TARGET}#a`, 't', 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString'],
    ]);
  });

  it('tells which access a patch needs', async () => {
    expect(patchNeeds([await parseN3Patch(`${SOLID}_:p a solid:InsertDeletePatch; solid:inserts { <#a> <#b> 1 }.`, TARGET)])).toEqual({ reads: false, deletes: false, inserts: true });
    expect(patchNeeds(await parseSparqlUpdate('DELETE { <#a> <#b> ?o } WHERE { <#a> <#b> ?o }', TARGET))).toEqual({ reads: true, deletes: true, inserts: false });
  });
});
