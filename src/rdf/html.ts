/**
 * The graph an HTML or XHTML page carries: its RDFa (rdfa-streaming-parser, which runs on htmlparser2 and
 * readable-stream, both free of Node built-ins) and its JSON-LD islands (`<script type="application/ld+json">`),
 * read within a per-request budget.
 */
import { DataFactory, type Quad, type Term } from 'n3';
import type { RdfaParser } from 'rdfa-streaming-parser';
import { HttpProblem, PROBLEM_TYPE_BASE } from '../http/problem.ts';
import { essenceOf } from '../storage/media-types.ts';
import { parseJsonLd } from './jsonld.ts';
import { JSON_LD } from './media.ts';

const { blankNode, literal, namedNode, quad } = DataFactory;

export const HTML = 'text/html';
export const XHTML = 'application/xhtml+xml';

export function isHtmlType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const essence = essenceOf(contentType);
  return essence === HTML || essence === XHTML;
}

/**
 * What reading one page's graph may cost. The RDFa parser's work grows with the square of the elements in one
 * container (it gathers their text for a possible literal), so elements and nesting are bounded, not only bytes.
 */
export const HTML_GRAPH_LIMITS = {
  /** Pages larger than this are served as HTML only. */
  bytes: 1024 * 1024,
  elements: 5_000,
  depth: 256,
  /** JSON-LD islands: each costs a JSON-LD parse, however small it is. */
  islands: 50,
  triples: 10_000,
} as const;

const GRAPH_NOT_AVAILABLE = 'html-graph-not-available';

/** The page is served as stored, but its graph is not: too large to read within the budget, or unreadable. */
function graphNotAvailable(detail: string): HttpProblem {
  return new HttpProblem(406, `${detail} The page itself is available as it is stored.`, { type: GRAPH_NOT_AVAILABLE });
}

export function pageTooLarge(): HttpProblem {
  return graphNotAvailable(`The graph of this page is not served: it is larger than ${HTML_GRAPH_LIMITS.bytes} bytes.`);
}

export function isGraphNotAvailable(error: unknown): boolean {
  return error instanceof HttpProblem && error.type === PROBLEM_TYPE_BASE + GRAPH_NOT_AVAILABLE;
}

type CollectingRdfaParser = RdfaParser & { readonly triples: Quad[] };
type CollectingRdfaParserClass = new (...args: ConstructorParameters<typeof RdfaParser>) => CollectingRdfaParser;
let collectingRdfaParser: Promise<CollectingRdfaParserClass> | undefined;

/**
 * An RdfaParser that hands its triples over synchronously instead of through a stream. Loaded on the first
 * page read: the parser and its HTML and stream modules cost ~100 ms at a start that reads no page.
 */
function loadCollectingRdfaParser(): Promise<CollectingRdfaParserClass> {
  return (collectingRdfaParser ??= import('rdfa-streaming-parser').then(
    ({ RdfaParser: Base }) =>
      class extends Base {
        readonly triples: Quad[] = [];

        override push(chunk: unknown): boolean {
          if (chunk !== null) this.triples.push(chunk as Quad);
          return true;
        }
      },
  ));
}

/** Terms of one source, rebuilt as n3 terms, with blank nodes kept apart from those of every other source. */
function adopt(quads: readonly Quad[], source: number): Quad[] {
  const term = <T extends Term>(t: T): T => {
    if (t.termType === 'BlankNode') return blankNode(`s${source}_${t.value}`) as unknown as T;
    if (t.termType === 'NamedNode') return namedNode(t.value) as unknown as T;
    if (t.termType === 'Literal') return literal(t.value, t.language || namedNode(t.datatype.value)) as unknown as T;
    return t;
  };
  return quads.map((q) => quad(term(q.subject), term(q.predicate), term(q.object), term(q.graph)));
}

const CHUNK_CHARS = 16 * 1024;

/** RDFa triples and the text of the JSON-LD islands, or a 406 when the page exceeds the budget. */
function readPage(CollectingRdfaParser: CollectingRdfaParserClass, text: string, contentType: string, baseUrl: string): { rdfa: Quad[]; islands: string[] } {
  const islands: string[] = [];
  let island: string[] | null = null;
  let elements = 0;
  let depth = 0;
  let overBudget: string | null = null;
  const parser = new CollectingRdfaParser({
    baseIRI: baseUrl,
    contentType: essenceOf(contentType),
    htmlParseListener: {
      onTagOpen(name, attributes) {
        elements += 1;
        depth += 1;
        if (elements > HTML_GRAPH_LIMITS.elements) overBudget ??= `more than ${HTML_GRAPH_LIMITS.elements} elements`;
        if (depth > HTML_GRAPH_LIMITS.depth) overBudget ??= `elements nested more than ${HTML_GRAPH_LIMITS.depth} deep`;
        if (name === 'script' && essenceOf(attributes.type ?? '') === JSON_LD) {
          island = [];
          if (islands.length >= HTML_GRAPH_LIMITS.islands) overBudget ??= `more than ${HTML_GRAPH_LIMITS.islands} JSON-LD islands`;
        }
      },
      onText(data) {
        island?.push(data);
      },
      onTagClose() {
        depth -= 1;
        if (island) islands.push(island.join(''));
        island = null;
      },
      onEnd() {},
    },
  });
  let failure: Error | null = null;
  parser.on('error', (error: Error) => (failure ??= error));
  const done = () => {};
  for (let offset = 0; offset < text.length && !overBudget && !failure; offset += CHUNK_CHARS) {
    parser._transform(text.slice(offset, offset + CHUNK_CHARS), 'utf8', done);
    if (parser.triples.length > HTML_GRAPH_LIMITS.triples) overBudget ??= `more than ${HTML_GRAPH_LIMITS.triples} triples`;
  }
  if (!overBudget && !failure) parser._flush(done);
  if (parser.triples.length > HTML_GRAPH_LIMITS.triples) overBudget ??= `more than ${HTML_GRAPH_LIMITS.triples} triples`;
  if (overBudget) throw graphNotAvailable(`The graph of this page is not served: it has ${overBudget}.`);
  if (failure) throw graphNotAvailable(`The RDFa of this page cannot be read: ${(failure as Error).message}.`);
  return { rdfa: parser.triples, islands };
}

/**
 * The page's graph: its RDFa and every JSON-LD island that parses (one that does not, or that needs a remote
 * context, is left out: the page's author cannot be asked, and the rest of the graph is still good).
 */
export async function parseHtmlGraph(text: string, contentType: string, baseUrl: string): Promise<Quad[]> {
  // Characters never outnumber UTF-8 bytes, so this is a backstop for callers that did not check the size.
  if (text.length > HTML_GRAPH_LIMITS.bytes) throw pageTooLarge();
  const { rdfa, islands } = readPage(await loadCollectingRdfaParser(), text, contentType, baseUrl);
  const quads = adopt(rdfa, 0);
  for (const [index, island] of islands.entries()) {
    const parsed = await parseJsonLd(island, baseUrl).catch((error: unknown) => {
      if (error instanceof HttpProblem) return null;
      throw error;
    });
    if (parsed) quads.push(...adopt(parsed.quads, index + 1));
    if (quads.length > HTML_GRAPH_LIMITS.triples) throw graphNotAvailable(`The graph of this page is not served: it has more than ${HTML_GRAPH_LIMITS.triples} triples.`);
  }
  return quads;
}
