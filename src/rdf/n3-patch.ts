import { Parser, type Quad, type Term } from 'n3';
import { parseN3InSlices } from './cooperative.ts';
import type { RdfLimits } from './limits.ts';
import { HttpProblem } from '../http/problem.ts';
import type { PatchOperation, TriplePattern } from './patch-apply.ts';
import { requireShallowSyntax } from './nesting.ts';
import { n3ErrorPosition, syntaxProblem } from './syntax-error.ts';

const SOLID = 'http://www.w3.org/ns/solid/terms#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

function shapeError(detail: string): HttpProblem {
  return new HttpProblem(422, `The N3 Patch does not follow the Solid Protocol's rules: ${detail}`, { type: 'invalid-n3-patch' });
}

function show(term: Term): string {
  return term.termType === 'Variable' ? `?${term.value}` : term.termType === 'NamedNode' ? `<${term.value}>` : term.value;
}

/**
 * Reads a Solid N3 Patch (Solid Protocol, "N3 Patch"): exactly one `solid:InsertDeletePatch` with at most one
 * each of `solid:where`, `solid:deletes` and `solid:inserts`, whose values are non-nested formulae. Syntax
 * errors are 400; documents that break those rules are 422.
 */
export async function parseN3Patch(text: string, targetUrl: string, limits?: RdfLimits): Promise<PatchOperation> {
  requireShallowSyntax(text, 'N3 Patch');
  let quads: Quad[];
  try {
    quads = await parseN3InSlices(new Parser({ format: 'text/n3', baseIRI: targetUrl }), text, undefined, limits);
  } catch (error) {
    if (error instanceof HttpProblem) throw error;
    throw syntaxProblem('N3', (error as Error).message, n3ErrorPosition(error, text), 'invalid-n3');
  }
  const topLevel = quads.filter((q) => q.graph.termType === 'DefaultGraph');
  const patches = topLevel.filter((q) => q.predicate.value === RDF_TYPE && q.object.value === `${SOLID}InsertDeletePatch`).map((q) => q.subject);
  const distinct = [...new Map(patches.map((p) => [`${p.termType}:${p.value}`, p])).values()];
  if (distinct.length !== 1) throw shapeError(`it must contain exactly one resource of type solid:InsertDeletePatch, found ${distinct.length}.`);
  const patch = distinct[0]!;

  const formulaIds = new Set(quads.filter((q) => q.graph.termType !== 'DefaultGraph').map((q) => q.graph.value));
  const subjectsAtTop = new Set(topLevel.filter((q) => q.subject.termType === 'BlankNode').map((q) => q.subject.value));

  const formula = (property: string): Quad[] => {
    const values = topLevel.filter((q) => q.subject.equals(patch) && q.predicate.value === SOLID + property).map((q) => q.object);
    if (values.length > 1) throw shapeError(`solid:${property} is given ${values.length} times; at most once is allowed.`);
    const value = values[0];
    if (!value) return [];
    if (value.termType !== 'BlankNode' || subjectsAtTop.has(value.value)) throw shapeError(`the value of solid:${property} must be a formula in braces { }.`);
    const triples = quads.filter((q) => q.graph.equals(value));
    for (const triple of triples) {
      for (const term of [triple.subject, triple.predicate, triple.object]) {
        if (term.termType === 'BlankNode' && formulaIds.has(term.value)) throw shapeError(`solid:${property} contains a nested formula.`);
      }
    }
    return triples;
  };

  const where = formula('where').map(toPattern);
  const deletes = formula('deletes').map(toPattern);
  const inserts = formula('inserts').map(toPattern);
  const whereVariables = new Set(where.flatMap(termsOf).filter((t) => t.termType === 'Variable').map((t) => t.value));
  for (const [name, patterns] of [['deletes', deletes], ['inserts', inserts]] as const) {
    for (const term of patterns.flatMap(termsOf)) {
      if (term.termType === 'BlankNode') throw shapeError(`solid:${name} must not contain blank nodes; bind them with a variable in solid:where.`);
      if (term.termType === 'Variable' && !whereVariables.has(term.value)) throw shapeError(`the variable ${show(term)} in solid:${name} does not occur in solid:where.`);
    }
    for (const pattern of patterns) {
      if (pattern.subject.termType === 'Literal' || pattern.predicate.termType === 'Literal') throw shapeError(`solid:${name} has a literal in subject or predicate position.`);
    }
  }
  return { where, deletes, inserts };
}

function toPattern(q: Quad): TriplePattern {
  return { subject: q.subject, predicate: q.predicate, object: q.object };
}

function termsOf(pattern: TriplePattern): Term[] {
  return [pattern.subject, pattern.predicate, pattern.object];
}
