import type jsonld from 'jsonld';
import type { Quad, Term } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { bundledContext } from './contexts.ts';
import { cooperation, Pacer } from './cooperative.ts';
import { jsonLdQuadWriter } from './jsonld-quads.ts';
import { QUADS_PER_SLICE } from './turtle-writer.ts';
import { DEFAULT_RDF_LIMITS, rdfTooLarge, type RdfLimits } from './limits.ts';
import { MAX_NESTING, tooDeep } from '../http/nesting.ts';
import { jsonErrorOffset, positionOfOffset, syntaxProblem } from './syntax-error.ts';

/** jsonld.js is loaded on first use: it is the largest module the server has, and startup does not need it. */
let library: Promise<typeof jsonld> | null = null;
const jsonldLibrary = () => (library ??= import('jsonld').then((module) => module.default));

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** Above this many quads, JSON-LD output stays in flat expanded form: compaction costs more than it is worth. */
const COMPACTION_LIMIT = 5000;

async function documentLoader(url: string) {
  const document = bundledContext(url);
  if (!document) {
    throw new HttpProblem(400, `The JSON-LD context ${url} is not known to this server, and remote contexts are not fetched. Inline the context instead.`, { type: 'unknown-jsonld-context' });
  }
  return { contextUrl: undefined, documentUrl: url, document };
}

/** jsonld.js wraps loader errors; find our own problem inside. */
function unwrap(error: unknown): unknown {
  let current = error as { details?: { cause?: unknown }; cause?: unknown } | undefined;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof HttpProblem) return current;
    current = (current.details?.cause ?? current.cause) as typeof current;
  }
  return error;
}

interface JsonLdTerm {
  termType: string;
  value: string;
  datatype?: { value: string };
  language?: string;
}

function fromTerm(term: Term): JsonLdTerm {
  if (term.termType === 'Literal') {
    return term.language
      ? { termType: 'Literal', value: term.value, language: term.language, datatype: { value: term.datatype.value } }
      : { termType: 'Literal', value: term.value, datatype: { value: term.datatype.value } };
  }
  if (term.termType === 'BlankNode') return { termType: 'BlankNode', value: term.value };
  if (term.termType === 'DefaultGraph') return { termType: 'DefaultGraph', value: '' };
  return { termType: term.termType, value: term.value };
}

export interface ParsedJsonLd {
  quads: Quad[];
  /** The document's own `@context`, reused to write the document back in the same vocabulary. */
  context?: unknown;
}

function jsonErrorPosition(text: string) {
  const offset = jsonErrorOffset(text);
  return offset === undefined ? undefined : positionOfOffset(text, offset);
}

/**
 * JSON values (objects, arrays, strings, numbers, booleans, null) jsonld.js expands in one go. Expansion costs
 * a few microseconds per value and cannot be interrupted, so this bounds how long one call holds the event loop.
 */
export const MAX_JSONLD_VALUES_PER_PIECE = 5000;

/** Values of small items grouped into one expansion call: smaller pieces than the limit keep each one short. */
const VALUES_PER_GROUP = 1000;

/** JSON values walked between pauses while a large document is measured. */
const VALUES_MEASURED_PER_SLICE = 20_000;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Counts the JSON values of a parsed value and refuses it (422) when, `above` levels down in the document, it
 * nests deeper than MAX_NESTING; walked without recursion, with pauses.
 */
async function measure(value: unknown, above: number, pacer: Pacer): Promise<number> {
  let count = 0;
  const pending: [unknown, number][] = [[value, above]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    count++;
    if (pacer.due(1)) await cooperation.pause();
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > MAX_NESTING) throw tooDeep('The JSON-LD document', depth + 1);
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1]);
  }
  return count;
}

/**
 * Splits a large document into parts whose expansions, concatenated, are the expansion of the whole: the items
 * of a top-level array (each item is expanded in the same initial context, and an array expands to an array),
 * or the items of `@graph` in a top-level object that has only `@context` and `@graph` (each part keeps that
 * context, and the top-level `@graph` object is unwrapped the same way). Small items are grouped
 * (VALUES_PER_GROUP); each part stays within MAX_JSONLD_VALUES_PER_PIECE, the context included; a larger document
 * of another shape is a 413. Measuring (and the nesting check) pauses every VALUES_MEASURED_PER_SLICE values.
 */
async function expansionPieces(document: object): Promise<object[]> {
  const pacer = new Pacer(VALUES_MEASURED_PER_SLICE);
  const record = isPlainObject(document) ? document : undefined;
  const graphOnly = record && Array.isArray(record['@graph']) && Object.keys(record).every((key) => key === '@context' || key === '@graph');
  const items = Array.isArray(document) ? document : graphOnly ? (record['@graph'] as unknown[]) : undefined;
  const tooLarge = () =>
    new HttpProblem(413, `This JSON-LD document is too large to process in one piece: split it into nodes of at most ${MAX_JSONLD_VALUES_PER_PIECE} JSON values each (context included), as the items of a top-level array or of a top-level "@graph" beside only "@context".`, {
      type: 'jsonld-too-large',
      extra: { limit: MAX_JSONLD_VALUES_PER_PIECE },
    });
  if (!items) {
    if ((await measure(document, 0, pacer)) > MAX_JSONLD_VALUES_PER_PIECE) throw tooLarge();
    return [document];
  }
  // The array, or the object and its @graph array, hold the items.
  const itemDepth = Array.isArray(document) ? 1 : 2;
  const contextValues = graphOnly && '@context' in record ? await measure(record['@context'], 1, pacer) : 0;
  const slices: unknown[][] = [];
  let current: unknown[] = [];
  let currentValues = contextValues;
  let total = contextValues;
  for (const item of items) {
    const values = await measure(item, itemDepth, pacer);
    total += values;
    if (contextValues + values > MAX_JSONLD_VALUES_PER_PIECE) throw tooLarge();
    if (current.length > 0 && currentValues + values > VALUES_PER_GROUP) {
      slices.push(current);
      current = [];
      currentValues = contextValues;
    }
    current.push(item);
    currentValues += values;
  }
  slices.push(current);
  if (total <= MAX_JSONLD_VALUES_PER_PIECE) return [document];
  if (!graphOnly) return slices;
  return slices.map((slice) => ('@context' in record ? { '@context': record['@context'], '@graph': slice } : { '@graph': slice }));
}

async function expand(document: object, baseUrl: string): Promise<unknown[]> {
  try {
    return await (await jsonldLibrary()).expand(document as jsonld.JsonLdDocument, { base: baseUrl, documentLoader } as jsonld.Options.Expand);
  } catch (error) {
    const cause = unwrap(error);
    if (cause instanceof HttpProblem) throw cause;
    const code = (error as { details?: { code?: string } }).details?.code;
    throw new HttpProblem(400, `The body is not valid JSON-LD: ${(error as Error).message}${code ? ` (${code})` : ''}`, { type: 'invalid-jsonld' });
  }
}

/**
 * Parses a JSON-LD document into quads, large documents in pieces with pauses between them (see expansionPieces),
 * each piece turned into quads as soon as it is expanded. Malformed JSON or JSON-LD is a 400 problem; a document
 * beyond `limits` a 413. JSON.parse itself cannot pause: the size limit bounds it.
 */
export async function parseJsonLd(text: string, baseUrl: string, limits: RdfLimits = DEFAULT_RDF_LIMITS): Promise<ParsedJsonLd> {
  if (text.length > limits.maxBytes) throw rdfTooLarge(limits);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw syntaxProblem('JSON', (error as Error).message, jsonErrorPosition(text), 'invalid-json');
  }
  if (typeof document !== 'object' || document === null) {
    throw new HttpProblem(400, 'A JSON-LD document must be a JSON object or array.', { type: 'invalid-jsonld' });
  }
  const pieces = await expansionPieces(document);
  const writer = jsonLdQuadWriter(limits);
  for (const piece of pieces) {
    if (pieces.length > 1) await cooperation.pause();
    writer.add(await expand(piece, baseUrl));
  }
  const context = Array.isArray(document) ? undefined : (document as Record<string, unknown>)['@context'];
  return { quads: writer.quads, context };
}

/**
 * The JSON number or boolean of a canonical integer or boolean literal: only lexical forms that JSON-LD turns
 * back into exactly the same literal, so nothing is lost. Undefined for anything else.
 */
function nativeValue(lexical: string, datatype: string): number | boolean | undefined {
  if (datatype === `${XSD}integer` && /^-?(0|[1-9][0-9]{0,14})$/.test(lexical) && lexical !== '-0') return Number(lexical);
  if (datatype === `${XSD}boolean` && (lexical === 'true' || lexical === 'false')) return lexical === 'true';
  return undefined;
}

/** Turns canonical integers and booleans of expanded JSON-LD into JSON numbers and booleans (see nativeValue). */
function useNativeLiterals(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) useNativeLiterals(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const value = record['@value'];
  if (typeof value === 'string' && typeof record['@type'] === 'string') {
    const native = nativeValue(value, record['@type']);
    if (native !== undefined) {
      record['@value'] = native;
      delete record['@type'];
    }
    return;
  }
  for (const child of Object.values(record)) useNativeLiterals(child);
}

const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const RDF_LANG_STRING = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#langString';

const idOf = (term: Term) => (term.termType === 'BlankNode' ? `_:${term.value}` : term.value);

function objectJson(term: Term): Record<string, unknown> {
  if (term.termType !== 'Literal') return { '@id': idOf(term) };
  const datatype = term.datatype.value;
  if (datatype === RDF_LANG_STRING) return { '@value': term.value, '@language': term.language };
  if (datatype === `${XSD}string`) return { '@value': term.value };
  const native = nativeValue(term.value, datatype);
  return native === undefined ? { '@value': term.value, '@type': datatype } : { '@value': native };
}

/**
 * A large graph as flat expanded JSON-LD (one node object per subject, per graph; lists stay rdf:first/rest
 * nodes), grouped and written node by node with pauses: jsonld.js's `fromRDF` and one JSON.stringify of the
 * whole would each hold the event loop for seconds on a few hundred thousand quads.
 */
async function flatJsonLd(quads: readonly Quad[]): Promise<string> {
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  const graphs = new Map<string, Map<string, Record<string, unknown>>>();
  for (const q of quads) {
    const graphKey = q.graph.termType === 'DefaultGraph' ? '' : idOf(q.graph);
    let nodes = graphs.get(graphKey);
    if (!nodes) graphs.set(graphKey, (nodes = new Map()));
    const subject = idOf(q.subject);
    let node = nodes.get(subject);
    if (!node) nodes.set(subject, (node = { '@id': subject }));
    const isType = q.predicate.value === RDF_TYPE && q.object.termType !== 'Literal';
    const property = isType ? '@type' : q.predicate.value;
    const values = (node[property] ??= []) as unknown[];
    values.push(isType ? idOf(q.object) : objectJson(q.object));
    if (pacer.due(1)) await cooperation.pause();
  }
  // A node of a named graph goes in a `{"@id": graph, "@graph": [node]}` of its own (all of them merge into one
  // graph), so no top-level item holds more than one node: each stays within what parseJsonLd expands at once.
  const parts: string[] = [];
  for (const [graph, nodes] of graphs) {
    const prefix = graph === '' ? '' : `{"@id":${JSON.stringify(graph)},"@graph":[`;
    for (const node of nodes.values()) {
      parts.push(prefix === '' ? JSON.stringify(node) : `${prefix}${JSON.stringify(node)}]}`);
      if (pacer.due(Object.keys(node).length)) await cooperation.pause();
    }
  }
  return `[${parts.join(',')}]`;
}

export interface JsonLdOutput {
  baseUrl: string;
  /** Context to compact with; without one, only IRIs relative to the base are shortened. */
  context?: unknown;
}

/**
 * Serializes quads as JSON-LD. Compacted (readable, IRIs relative to the document) when the graph is small
 * enough; compaction and expansion are inverse operations, so every triple, datatype and language survives.
 */
export async function quadsToJsonLd(quads: Quad[], output: JsonLdOutput): Promise<string> {
  if (quads.length > COMPACTION_LIMIT) return flatJsonLd(quads);
  const dataset = quads.map((q) => ({ subject: fromTerm(q.subject), predicate: fromTerm(q.predicate), object: fromTerm(q.object), graph: fromTerm(q.graph) }));
  const processor = await jsonldLibrary();
  const expanded = await processor.fromRDF(dataset as unknown as object, { useNativeTypes: false });
  useNativeLiterals(expanded);
  const context = (output.context ?? {}) as jsonld.ContextDefinition;
  const compacted = await processor.compact(expanded, context, { base: output.baseUrl, documentLoader } as jsonld.Options.Compact);
  return JSON.stringify(compacted);
}
