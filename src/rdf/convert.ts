import jsonld from 'jsonld';
import { Parser, Writer, type Quad } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { parseJsonLd } from './jsonld.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from './media.ts';

/** Parses an RDF document of a known type into quads; syntax errors are 400 problems with the parser's position. */
export async function parseRdf(text: string, type: string, baseUrl: string): Promise<Quad[]> {
  if (type === JSON_LD) return parseJsonLd(text, baseUrl);
  const format = type === TURTLE ? 'text/turtle' : type === N_TRIPLES ? 'application/n-triples' : type === N3 ? 'text/n3' : null;
  if (!format) throw new HttpProblem(415, `${type} is not an RDF type this server parses.`, { type: 'unsupported-media-type' });
  try {
    return new Parser({ format, baseIRI: baseUrl }).parse(text);
  } catch (error) {
    throw new HttpProblem(400, `The body is not valid ${format}: ${(error as Error).message}`, { type: 'invalid-rdf' });
  }
}

function termToJsonLd(term: Quad['subject'] | Quad['object'] | Quad['graph']): Record<string, unknown> {
  if (term.termType === 'Literal') {
    return term.language
      ? { termType: 'Literal', value: term.value, language: term.language, datatype: { termType: 'NamedNode', value: term.datatype.value } }
      : { termType: 'Literal', value: term.value, datatype: { termType: 'NamedNode', value: term.datatype.value } };
  }
  if (term.termType === 'BlankNode') return { termType: 'BlankNode', value: `_:${term.value}` };
  if (term.termType === 'DefaultGraph') return { termType: 'DefaultGraph', value: '' };
  return { termType: term.termType, value: term.value };
}

/** Serializes quads as JSON-LD (expanded, lossless), Turtle or N-Triples. */
export async function serializeQuads(quads: Quad[], type: string, baseUrl: string): Promise<string> {
  if (type === JSON_LD) {
    const dataset = quads.map((q) => ({
      subject: termToJsonLd(q.subject),
      predicate: termToJsonLd(q.predicate),
      object: termToJsonLd(q.object),
      graph: termToJsonLd(q.graph),
    }));
    const document = await jsonld.fromRDF(dataset as unknown as object, { useNativeTypes: false });
    return JSON.stringify(document);
  }
  const format = type === TURTLE ? 'text/turtle' : 'application/n-triples';
  const writer = new Writer({ format, baseIRI: type === TURTLE ? baseUrl : undefined });
  writer.addQuads(quads);
  return new Promise((resolve, reject) => writer.end((error, result) => (error ? reject(error) : resolve(result))));
}

export async function convertRdf(text: string, from: string, to: string, baseUrl: string): Promise<string> {
  return serializeQuads(await parseRdf(text, from, baseUrl), to, baseUrl);
}
