import { Parser, Writer, type Quad } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { isHtmlType, parseHtmlGraph } from './html.ts';
import { parseJsonLd, quadsToJsonLd } from './jsonld.ts';
import { cooperation, Pacer, parseN3InSlices } from './cooperative.ts';
import { DEFAULT_RDF_LIMITS, rdfTooLarge, type RdfLimits } from './limits.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from './media.ts';
import { requireShallowGraph, requireShallowSyntax } from './nesting.ts';
import { n3ErrorPosition, syntaxProblem } from './syntax-error.ts';
import { QUADS_PER_SLICE, relabelBlankNodes, writeTurtle } from './turtle-writer.ts';

/** An RDF document as parsed: its quads plus what helps write it back readably in the same style. */
export interface RdfDocument {
  quads: Quad[];
  /** Turtle/N3 prefixes declared by the document. */
  prefixes: Record<string, string>;
  /** JSON-LD `@context` of the document. */
  context?: unknown;
}

const N3_FORMATS: Record<string, string> = { [TURTLE]: 'text/turtle', [N_TRIPLES]: 'application/n-triples', [N3]: 'text/n3' };

/**
 * Parses an RDF document of a known type; syntax errors are 400 problems with the parser's line and column.
 * A document nested too deeply to serve again (see MAX_NESTING), or one with N3 variables, is a 422; one
 * beyond `limits` a 413. Every pass over a large document pauses between slices (see cooperative.ts).
 */
export async function parseRdfDocument(text: string, type: string, baseUrl: string, limits: RdfLimits = DEFAULT_RDF_LIMITS): Promise<RdfDocument> {
  if (text.length > limits.maxBytes) throw rdfTooLarge(limits);
  const document = type === JSON_LD ? { prefixes: {}, ...(await parseJsonLd(text, baseUrl, limits)) } : await parseN3Family(text, type, baseUrl, limits);
  await requireShallowGraph(document.quads);
  const pacer = new Pacer(TERMS_CHECKED_PER_SLICE);
  for (const quad of document.quads) {
    if (quad.subject.termType === 'Variable' || quad.predicate.termType === 'Variable' || quad.object.termType === 'Variable') {
      throw new HttpProblem(422, 'The document uses N3 variables (such as ?x), which have no form in JSON-LD or Turtle, so it could not be served again: write the terms out, or store it as text/plain.', { type: 'rdf-variables' });
    }
    if (pacer.due(1)) await cooperation.pause();
  }
  return document;
}

/** Quads checked for variables between pauses. */
const TERMS_CHECKED_PER_SLICE = 50_000;

async function parseN3Family(text: string, type: string, baseUrl: string, limits: RdfLimits): Promise<RdfDocument> {
  const format = N3_FORMATS[type];
  if (!format) throw new HttpProblem(415, `${type} is not an RDF type this server parses.`, { type: 'unsupported-media-type' });
  requireShallowSyntax(text, type);
  const prefixes: Record<string, string> = {};
  let quads: Quad[];
  try {
    quads = await parseN3InSlices(
      new Parser({ format, baseIRI: baseUrl }),
      text,
      (name, iri) => {
        prefixes[name] = iri.value;
      },
      limits,
    );
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw syntaxProblem(type, (error as Error).message, n3ErrorPosition(error, text));
  }
  return { quads, prefixes };
}

export async function parseRdf(text: string, type: string, baseUrl: string, limits?: RdfLimits): Promise<Quad[]> {
  return (await parseRdfDocument(text, type, baseUrl, limits)).quads;
}

export interface SerializeHints {
  prefixes?: Record<string, string>;
  context?: unknown;
}

/** Turtle and N-Triples have no named graphs: refuse rather than silently merge or drop them. */
function requireDefaultGraph(quads: Quad[], type: string): void {
  if (quads.some((q) => q.graph.termType !== 'DefaultGraph')) {
    throw new HttpProblem(406, `This resource holds named graphs, which ${type} cannot express. Ask for application/ld+json.`, { type: 'not-acceptable' });
  }
}

/** Serializes quads as JSON-LD (compacted when cheap), Turtle (relative IRIs, prefixes, inline blank nodes) or N-Triples. */
export async function serializeQuads(quads: Quad[], type: string, baseUrl: string, hints: SerializeHints = {}): Promise<string> {
  if (type === JSON_LD) return quadsToJsonLd(await relabelBlankNodes(quads), { baseUrl, context: hints.context ?? contextFromPrefixes(hints.prefixes) });
  requireDefaultGraph(quads, type);
  if (type === TURTLE) return writeTurtle(quads, baseUrl, hints.prefixes ?? {});
  const writer = new Writer({ format: 'application/n-triples' });
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  for (const quad of await relabelBlankNodes(quads)) {
    writer.addQuad(quad);
    if (pacer.due(1)) await cooperation.pause();
  }
  return new Promise((resolve, reject) => writer.end((error, result) => (error ? reject(error) : resolve(result))));
}

/** A JSON-LD context of plain prefix definitions: safe for compaction, which then writes `foaf:name`. */
function contextFromPrefixes(prefixes: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!prefixes) return undefined;
  const usable = Object.entries(prefixes).filter(([name, iri]) => name !== '' && /[#/:]$/.test(iri));
  return usable.length ? Object.fromEntries(usable) : undefined;
}

/** An RDF document in another syntax; an HTML or XHTML page (`from`) gives the graph of its RDFa and JSON-LD islands. */
export async function convertRdf(text: string, from: string, to: string, baseUrl: string, limits?: RdfLimits): Promise<string> {
  if (isHtmlType(from)) return serializeQuads(await parseHtmlGraph(text, from, baseUrl), to, baseUrl);
  const document = await parseRdfDocument(text, from, baseUrl, limits);
  return serializeQuads(document.quads, to, baseUrl, document);
}
