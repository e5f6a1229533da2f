/**
 * Adds triples to a stored RDF document without rewriting what is there: for a caller who may only append
 * (WAC Append without Write), whose PATCH must add and change nothing else (see docs/decisions.md, "Append
 * without rewriting"). Turtle, N-Triples and N3 get the triples as N-Triples lines at the end; JSON-LD gets
 * them as nodes in expanded form inside the top-level array, the top-level `@graph`, or an `@included` member
 * of the top-level node. The owner's text stays byte for byte in front of, or around, what is added.
 *
 * Every result is parsed again and must give exactly the document's triples plus the added ones; when it does
 * not (a context that would read the added nodes differently, a shape that has no place to add to), the answer
 * is null and nothing can be appended: that takes Write.
 */
import { DataFactory, Writer, type Quad, type Store, type Term } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { parseRdfDocument } from './convert.ts';
import { cooperation, Pacer } from './cooperative.ts';
import type { RdfLimits } from './limits.ts';
import { JSON_LD, N3, N_TRIPLES, TURTLE } from './media.ts';
import { storeInSlices } from './store-slices.ts';
import { QUADS_PER_SLICE } from './turtle-writer.ts';

const { blankNode, quad } = DataFactory;

const XSD_STRING = 'http://www.w3.org/2001/XMLSchema#string';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

/** Blank node labels no document has: the added nodes cannot meet one of the owner's by name. */
function freshLabels(): (term: Term) => string {
  const prefix = 'append' + [...crypto.getRandomValues(new Uint8Array(8))].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  const labels = new Map<string, string>();
  return (term) => {
    let label = labels.get(term.value);
    if (label === undefined) labels.set(term.value, (label = `${prefix}x${labels.size}`));
    return label;
  };
}

function relabelled(quads: readonly Quad[], labelOf: (term: Term) => string): Quad[] {
  const relabel = <T extends Term>(term: T): T => (term.termType === 'BlankNode' ? (blankNode(labelOf(term)) as T) : term);
  return quads.map((q) => quad(relabel(q.subject), q.predicate, relabel(q.object), q.graph));
}

async function nTriples(quads: readonly Quad[], labelOf: (term: Term) => string): Promise<string> {
  const writer = new Writer({ format: 'application/n-triples' });
  const pacer = new Pacer(QUADS_PER_SLICE);
  for (const added of relabelled(quads, labelOf)) {
    writer.addQuad(added);
    if (pacer.due(1)) await cooperation.pause();
  }
  return new Promise((resolve, reject) => writer.end((error, result) => (error ? reject(error) : resolve(result))));
}

function jsonLdValue(term: Term, labelOf: (term: Term) => string): Record<string, string> {
  if (term.termType === 'NamedNode') return { '@id': term.value };
  if (term.termType === 'BlankNode') return { '@id': `_:${labelOf(term)}` };
  if (term.termType !== 'Literal') throw new Error(`no JSON-LD form for a ${term.termType}`);
  if (term.language) return { '@value': term.value, '@language': term.language };
  const datatype = term.datatype.value;
  return datatype === XSD_STRING || datatype === RDF_LANG_STRING ? { '@value': term.value } : { '@value': term.value, '@type': datatype };
}

/** The added triples as node objects in expanded form: absolute IRIs, explicit values, nothing a context decides. */
async function jsonLdNodes(quads: readonly Quad[], labelOf: (term: Term) => string): Promise<string> {
  const nodes = new Map<string, Record<string, unknown>>();
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  for (const quad of quads) {
    if (pacer.due(1)) await cooperation.pause();
    const id = jsonLdValue(quad.subject, labelOf)['@id']!;
    let node = nodes.get(id);
    if (!node) nodes.set(id, (node = { '@id': id }));
    const values = (node[quad.predicate.value] ??= []) as unknown[];
    values.push(jsonLdValue(quad.object, labelOf));
  }
  return [...nodes.values()].map((node) => JSON.stringify(node)).join(',');
}

/** `text` with `insert` placed before its last non-white-space character, which must be `closing`. */
function insertBeforeLast(text: string, closing: string, insert: string): string | null {
  const end = text.trimEnd().length - 1;
  if (end < 0 || text[end] !== closing) return null;
  return text.slice(0, end) + insert + text.slice(end);
}

function appendJsonLd(text: string, nodes: string): string | null {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(document)) return insertBeforeLast(text, ']', (document.length > 0 ? ',' : '') + nodes);
  if (typeof document !== 'object' || document === null) return null;
  const keys = Object.keys(document);
  const graph = (document as Record<string, unknown>)['@graph'];
  if (keys.every((key) => key === '@context' || key === '@graph') && keys.at(-1) === '@graph') {
    // The default graph of the document: add to it, before the `]` that closes `@graph` (the last member).
    if (!Array.isArray(graph)) return null;
    const withoutClosingBrace = insertBeforeLast(text, '}', '\u0000');
    if (withoutClosingBrace === null) return null;
    const [head, tail] = withoutClosingBrace.split('\u0000') as [string, string];
    const inGraph = insertBeforeLast(head, ']', (graph.length > 0 ? ',' : '') + nodes);
    return inGraph === null ? null : inGraph + tail;
  }
  if (keys.includes('@included')) return null;
  return insertBeforeLast(text, '}', `${keys.length > 0 ? ',' : ''}"@included":[${nodes}]`);
}

/** The document text with `added` appended; null when that cannot be done without rewriting it. */
async function appendedText(text: string, type: string, added: readonly Quad[], labelOf: (term: Term) => string): Promise<string | null> {
  if (type === TURTLE || type === N_TRIPLES || type === N3) {
    // On a line of its own: the document may end in a comment.
    return text + (text === '' || text.endsWith('\n') ? '' : '\n') + (await nTriples(added, labelOf));
  }
  if (type === JSON_LD) return appendJsonLd(text, await jsonLdNodes(added, labelOf));
  return null;
}

/**
 * `text` (a document of `type`) with the triples `added` after it, so that it reads as `expected` (its own
 * triples and the added ones); null when they cannot be added without rewriting the document. The blank
 * nodes of `added` must be new ones (the document's own cannot be named from outside it). The result is
 * parsed again within `limits` (a 413 when it grows past them); every pass over it pauses between slices.
 */
export async function appendTriples(text: string, type: string, baseUrl: string, expected: Store, added: readonly Quad[], limits: RdfLimits): Promise<string | null> {
  if (added.length === 0) return text;
  const appended = await appendedText(text, type, added, freshLabels());
  if (appended === null) return null;
  let reread: Store;
  try {
    reread = await storeInSlices((await parseRdfDocument(appended, type, baseUrl, limits)).quads);
  } catch (error) {
    if (error instanceof HttpProblem && error.status === 413) throw error;
    return null;
  }
  if (reread.size !== expected.size) return null;
  const ground = (triple: Quad) => triple.subject.termType !== 'BlankNode' && triple.object.termType !== 'BlankNode';
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  // @types/n3 gives readQuads the RDF/JS quad type; the store's own quads are n3's.
  for (const triple of expected.readQuads(null, null, null, null) as Iterable<Quad>) {
    if (ground(triple) && !reread.has(triple)) return null;
    if (pacer.due(1)) await cooperation.pause();
  }
  return appended;
}
