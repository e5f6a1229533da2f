import type jsonld from 'jsonld';
import type { Quad, Term } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { bundledContext } from './contexts.ts';
import { cooperation } from './cooperative.ts';
import { expandedJsonLdToQuads } from './jsonld-quads.ts';
import { requireShallowJson } from '../http/nesting.ts';
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

/** Counts the JSON values of a parsed document, walked without recursion. */
function countJsonValues(value: unknown): number {
  let count = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    count++;
    if (typeof current === 'object' && current !== null) for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push(child);
  }
  return count;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Splits a large document into parts whose expansions, concatenated, are the expansion of the whole: the items
 * of a top-level array (each item is expanded in the same initial context, and an array expands to an array),
 * or the items of `@graph` in a top-level object that has only `@context` and `@graph` (each part keeps that
 * context, and the top-level `@graph` object is unwrapped the same way). Small items are grouped
 * (VALUES_PER_GROUP); each part stays within MAX_JSONLD_VALUES_PER_PIECE, the context included; a larger document of another shape is a 413.
 */
function expansionPieces(document: object): object[] {
  if (countJsonValues(document) <= MAX_JSONLD_VALUES_PER_PIECE) return [document];
  const record = isPlainObject(document) ? document : undefined;
  const graphOnly = record && Array.isArray(record['@graph']) && Object.keys(record).every((key) => key === '@context' || key === '@graph');
  const items = Array.isArray(document) ? document : graphOnly ? (record['@graph'] as unknown[]) : undefined;
  const contextValues = graphOnly && '@context' in record ? countJsonValues(record['@context']) : 0;
  const tooLarge = () =>
    new HttpProblem(413, `This JSON-LD document is too large to process in one piece: split it into nodes of at most ${MAX_JSONLD_VALUES_PER_PIECE} JSON values each (context included), as the items of a top-level array or of a top-level "@graph" beside only "@context".`, {
      type: 'jsonld-too-large',
      extra: { limit: MAX_JSONLD_VALUES_PER_PIECE },
    });
  if (!items) throw tooLarge();
  const slices: unknown[][] = [];
  let current: unknown[] = [];
  let currentValues = contextValues;
  for (const item of items) {
    const values = countJsonValues(item);
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

/** Parses a JSON-LD document into quads, large documents in pieces with pauses between them (see expansionPieces). Malformed JSON or JSON-LD is a 400 problem. */
export async function parseJsonLd(text: string, baseUrl: string): Promise<ParsedJsonLd> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw syntaxProblem('JSON', (error as Error).message, jsonErrorPosition(text), 'invalid-json');
  }
  if (typeof document !== 'object' || document === null) {
    throw new HttpProblem(400, 'A JSON-LD document must be a JSON object or array.', { type: 'invalid-jsonld' });
  }
  requireShallowJson(document, 'The JSON-LD document');
  const pieces = expansionPieces(document);
  const expanded: unknown[] = [];
  for (const piece of pieces) {
    if (pieces.length > 1) await cooperation.pause();
    expanded.push(...(await expand(piece, baseUrl)));
  }
  const quads = expandedJsonLdToQuads(expanded);
  const context = Array.isArray(document) ? undefined : (document as Record<string, unknown>)['@context'];
  return { quads, context };
}

/**
 * Turns canonical integers and booleans into JSON numbers and booleans. Only lexical forms that JSON-LD
 * turns back into exactly the same literal are touched, so nothing is lost.
 */
function useNativeLiterals(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) useNativeLiterals(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  const value = record['@value'];
  if (typeof value === 'string' && typeof record['@type'] === 'string') {
    if (record['@type'] === `${XSD}integer` && /^-?(0|[1-9][0-9]{0,14})$/.test(value) && value !== '-0') {
      record['@value'] = Number(value);
      delete record['@type'];
    } else if (record['@type'] === `${XSD}boolean` && (value === 'true' || value === 'false')) {
      record['@value'] = value === 'true';
      delete record['@type'];
    }
    return;
  }
  for (const child of Object.values(record)) useNativeLiterals(child);
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
  const dataset = quads.map((q) => ({ subject: fromTerm(q.subject), predicate: fromTerm(q.predicate), object: fromTerm(q.object), graph: fromTerm(q.graph) }));
  const processor = await jsonldLibrary();
  const expanded = await processor.fromRDF(dataset as unknown as object, { useNativeTypes: false });
  useNativeLiterals(expanded);
  if (quads.length > COMPACTION_LIMIT) return JSON.stringify(expanded);
  const context = (output.context ?? {}) as jsonld.ContextDefinition;
  const compacted = await processor.compact(expanded, context, { base: output.baseUrl, documentLoader } as jsonld.Options.Compact);
  return JSON.stringify(compacted);
}
