import { DataFactory, type Term } from 'n3';
import type { RdfLimits } from './limits.ts';
import { HttpProblem } from '../http/problem.ts';
import type { PatchOperation, TriplePattern } from './patch-apply.ts';
import { requireShallowSyntax } from './nesting.ts';
import { parseDataOnlyUpdate } from './sparql-data.ts';
import { n3ErrorPosition, syntaxProblem } from './syntax-error.ts';

const { namedNode, blankNode, literal, variable } = DataFactory;

function unsupported(feature: string): HttpProblem {
  return new HttpProblem(422, `This server applies SPARQL Update with INSERT DATA, DELETE DATA, DELETE/INSERT ... WHERE and DELETE WHERE over basic graph patterns only; ${feature} is not supported.`, { type: 'unsupported-sparql' });
}

interface SparqlTerm {
  termType?: string;
  type?: string;
  value?: string;
  language?: string;
  datatype?: { value: string };
}

function toTerm(term: SparqlTerm): Term {
  switch (term.termType) {
    case 'NamedNode':
      return namedNode(term.value!);
    case 'BlankNode':
      return blankNode(term.value!);
    case 'Variable':
      return variable(term.value!);
    case 'Literal':
      return term.language ? literal(term.value!, term.language) : literal(term.value!, namedNode(term.datatype!.value));
    default:
      throw term.type === 'path' ? unsupported('a property path') : unsupported(`the term type ${term.termType ?? term.type}`);
  }
}

interface SparqlPattern {
  type: string;
  triples?: { subject: SparqlTerm; predicate: SparqlTerm; object: SparqlTerm }[];
}

const GROUP_NAMES: Record<string, string> = {
  graph: 'GRAPH', optional: 'OPTIONAL', filter: 'FILTER', union: 'UNION', minus: 'MINUS', bind: 'BIND',
  values: 'VALUES', service: 'SERVICE', group: 'a nested group { }', query: 'a subquery',
};

/** Flattens a list of basic graph patterns into triple patterns; anything else is a 422. */
function triplesOf(patterns: readonly SparqlPattern[] | undefined): TriplePattern[] {
  const result: TriplePattern[] = [];
  for (const pattern of patterns ?? []) {
    if (pattern.type !== 'bgp') throw unsupported(GROUP_NAMES[pattern.type] ?? pattern.type);
    for (const triple of pattern.triples ?? []) {
      result.push({ subject: toTerm(triple.subject), predicate: toTerm(triple.predicate), object: toTerm(triple.object) });
    }
  }
  return result;
}

interface SparqlUpdateOperation {
  type?: string;
  updateType?: string;
  insert?: SparqlPattern[];
  delete?: SparqlPattern[];
  where?: SparqlPattern[];
  using?: unknown;
  graph?: unknown;
}

function toOperation(update: SparqlUpdateOperation): PatchOperation {
  if (update.type) throw unsupported(`the ${update.type.toUpperCase()} operation`);
  if (update.graph) throw unsupported('WITH');
  if (update.using) throw unsupported('USING');
  switch (update.updateType) {
    case 'insert':
      return { where: [], deletes: [], inserts: triplesOf(update.insert) };
    case 'delete':
      return { where: [], deletes: triplesOf(update.delete), inserts: [] };
    case 'deletewhere': {
      const patterns = triplesOf(update.delete);
      return { where: patterns, deletes: patterns, inserts: [] };
    }
    case 'insertdelete':
      return { where: triplesOf(update.where), deletes: triplesOf(update.delete), inserts: triplesOf(update.insert) };
    default:
      throw unsupported(`the update form ${update.updateType}`);
  }
}

/**
 * Largest SPARQL Update body given to sparqljs. Its lexer works on the rest of the input at each token, so its
 * time grows with the square of the size (30 KB: a fifth of a second; 680 KB: fifteen seconds under load);
 * PATCH bodies from Solid clients are a few hundred bytes. Updates of only INSERT DATA / DELETE DATA are parsed
 * by n3 instead (sparql-data.ts) and may be as large as any body; larger other changes fit N3 Patch or PUT.
 */
export const MAX_SPARQL_UPDATE_BYTES = 16 * 1024;

/** Parses SPARQL Update text (operations separated by `;`) against the target resource's URL. */
export async function parseSparqlUpdate(text: string, targetUrl: string, limits?: RdfLimits): Promise<PatchOperation[]> {
  requireShallowSyntax(text, 'SPARQL Update');
  const small = new TextEncoder().encode(text).byteLength <= MAX_SPARQL_UPDATE_BYTES;
  try {
    const dataOnly = await parseDataOnlyUpdate(text, targetUrl, limits);
    if (dataOnly) return dataOnly;
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    // Small updates n3 cannot read go to sparqljs, whose errors name SPARQL's grammar (and which reads anything valid).
    if (!small) throw syntaxProblem('SPARQL Update', (error as Error).message, n3ErrorPosition(error, text), 'invalid-sparql');
  }
  if (!small) {
    throw new HttpProblem(413, `A SPARQL Update other than INSERT DATA and DELETE DATA may be at most ${MAX_SPARQL_UPDATE_BYTES / 1024} KB; send larger changes as N3 Patch or PUT.`, { type: 'body-too-large' });
  }
  return parseWithSparqljs(text, targetUrl);
}

/** Parses any SPARQL Update with sparqljs; operations the applier cannot run are 422. */
export async function parseWithSparqljs(text: string, targetUrl: string): Promise<PatchOperation[]> {
  // Loaded on the first SPARQL PATCH: the parser is large and most servers start without needing it.
  const { Parser } = (await import('sparqljs')).default;
  let parsed: { type: string; updates?: SparqlUpdateOperation[] };
  try {
    parsed = new Parser({ baseIRI: targetUrl }).parse(text) as unknown as typeof parsed;
  } catch (error) {
    const location = (error as { hash?: { loc?: { first_line: number; first_column: number } } }).hash?.loc;
    const message = (error as Error).message.split('\n').at(-1) ?? (error as Error).message;
    throw syntaxProblem('SPARQL Update', message, location ? { line: location.first_line, column: location.first_column + 1 } : undefined, 'invalid-sparql');
  }
  if (parsed.type !== 'update') throw unsupported('a query (SELECT, ASK, CONSTRUCT or DESCRIBE) in a PATCH body');
  return (parsed.updates ?? []).map(toOperation);
}
