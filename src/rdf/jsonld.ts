import jsonld from 'jsonld';
import { DataFactory, type Quad, type Term } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { BUNDLED_CONTEXTS } from './contexts.ts';

const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;

function normalizeContextUrl(url: string): string {
  return url.replace(/^http:/, 'https:').replace(/\/$/, '');
}

const bundled = new Map(Object.entries(BUNDLED_CONTEXTS).map(([url, doc]) => [normalizeContextUrl(url), doc]));

async function documentLoader(url: string) {
  const document = bundled.get(normalizeContextUrl(url));
  if (!document) {
    throw new HttpProblem(400, `The JSON-LD context ${url} is not known to this server, and remote contexts are not fetched. Inline the context instead.`, { type: 'unknown-jsonld-context' });
  }
  return { contextUrl: undefined, documentUrl: url, document };
}

interface JsonLdTerm {
  termType: string;
  value: string;
  datatype?: { value: string };
  language?: string;
}

function toTerm(term: JsonLdTerm): Term {
  switch (term.termType) {
    case 'NamedNode':
      return namedNode(term.value);
    case 'BlankNode':
      return blankNode(term.value.replace(/^_:/, ''));
    case 'Literal':
      return term.language ? literal(term.value, term.language) : literal(term.value, namedNode(term.datatype!.value));
    default:
      return defaultGraph();
  }
}

function unwrap(error: unknown): unknown {
  let current = error as { details?: { cause?: unknown }; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof HttpProblem) return current;
    current = (current.details?.cause ?? current.cause) as typeof current;
  }
  return error;
}

/** Parses a JSON-LD document into quads. Malformed JSON or JSON-LD is a 400 problem. */
export async function parseJsonLd(text: string, baseUrl: string): Promise<Quad[]> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new HttpProblem(400, `The body is not valid JSON: ${(error as Error).message}`, { type: 'invalid-json' });
  }
  if (typeof document !== 'object' || document === null) {
    throw new HttpProblem(400, 'A JSON-LD document must be a JSON object or array.', { type: 'invalid-jsonld' });
  }
  let dataset: unknown[];
  try {
    dataset = (await jsonld.toRDF(document as jsonld.JsonLdDocument, { base: baseUrl, documentLoader } as jsonld.Options.ToRdf)) as unknown[];
  } catch (error) {
    const cause = unwrap(error);
    if (cause instanceof HttpProblem) throw cause;
    throw new HttpProblem(400, `The body is not valid JSON-LD: ${(error as Error).message}`, { type: 'invalid-jsonld' });
  }
  return (dataset as { subject: JsonLdTerm; predicate: JsonLdTerm; object: JsonLdTerm; graph: JsonLdTerm }[]).map((q) =>
    quad(toTerm(q.subject) as Quad['subject'], toTerm(q.predicate) as Quad['predicate'], toTerm(q.object) as Quad['object'], toTerm(q.graph) as Quad['graph']),
  );
}
