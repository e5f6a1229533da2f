import { DataFactory, Store, type Quad, type Term } from 'n3';
import { HttpProblem } from '../http/problem.ts';
import { Pacer } from './cooperative.ts';

const { blankNode, defaultGraph, quad } = DataFactory;

/** A triple whose terms may be variables (and, in a where clause, blank nodes that act as variables). */
export interface TriplePattern {
  subject: Term;
  predicate: Term;
  object: Term;
}

/**
 * One step of a patch, the common shape of an N3 InsertDeletePatch and a SPARQL update operation: find the
 * single binding of `where`, then delete the bound `deletes` (which must all exist) and add the bound `inserts`.
 */
export interface PatchOperation {
  where: TriplePattern[];
  deletes: TriplePattern[];
  inserts: TriplePattern[];
}

/** What a patch needs, for the access check made before the resource is read. */
export function patchNeeds(operations: readonly PatchOperation[]): { reads: boolean; deletes: boolean; inserts: boolean } {
  return {
    reads: operations.some((op) => op.where.length > 0),
    deletes: operations.some((op) => op.deletes.length > 0),
    inserts: operations.some((op) => op.inserts.length > 0),
  };
}

type Binding = Map<string, Term>;

/** Variables and where-clause blank nodes are both placeholders; they live in separate name spaces. */
function placeholderKey(term: Term): string | null {
  if (term.termType === 'Variable') return `?${term.value}`;
  if (term.termType === 'BlankNode') return `_:${term.value}`;
  return null;
}

function termKey(term: Term): string {
  if (term.termType === 'Literal') return `"${term.value}"@${term.language}^^${term.datatype.value}`;
  return `${term.termType}:${term.value}`;
}

function resolve(term: Term, binding: Binding): Term | null {
  const key = placeholderKey(term);
  return key === null ? term : (binding.get(key) ?? null);
}

/** Candidate triples a where clause may try in all: a clause that would take longer is refused, not run. */
const MAX_JOIN_STEPS = 100_000;

const fixedTerms = (pattern: TriplePattern) => [pattern.subject, pattern.predicate, pattern.object].filter((term) => placeholderKey(term) === null).length;

/**
 * Depth-first join over the patterns, most constrained first; stops early once `limit` distinct variable
 * bindings are found (or, without variables, at the first match), and refuses a clause that would try more
 * than MAX_JOIN_STEPS candidate triples, since one request must not hold the event loop.
 */
function findBindings(store: Store, wherePatterns: readonly TriplePattern[], limit: number): Binding[] {
  const patterns = [...wherePatterns].sort((a, b) => fixedTerms(b) - fixedTerms(a));
  const found = new Map<string, Binding>();
  const variables = [...new Set(patterns.flatMap((p) => [p.subject, p.predicate, p.object]).filter((t) => t.termType === 'Variable').map((t) => `?${t.value}`))];
  const enough = variables.length === 0 ? 1 : limit;
  let steps = 0;
  const visit = (index: number, binding: Binding): void => {
    if (found.size >= enough) return;
    if (index === patterns.length) {
      const key = variables.map((v) => termKey(binding.get(v)!)).join(' ');
      if (!found.has(key)) found.set(key, binding);
      return;
    }
    const pattern = patterns[index]!;
    const [s, p, o] = [resolve(pattern.subject, binding), resolve(pattern.predicate, binding), resolve(pattern.object, binding)];
    for (const match of store.getQuads(s, p, o, defaultGraph())) {
      if (found.size >= enough) return;
      if (++steps > MAX_JOIN_STEPS) {
        throw new HttpProblem(422, `The where clause is too expensive to evaluate (over ${MAX_JOIN_STEPS} candidate triples); make its patterns more specific.`, { type: 'patch-too-complex' });
      }
      const next = new Map(binding);
      const pairs: [Term, Term][] = [[pattern.subject, match.subject], [pattern.predicate, match.predicate], [pattern.object, match.object]];
      let consistent = true;
      for (const [placeholder, value] of pairs) {
        const key = placeholderKey(placeholder);
        if (key === null) continue;
        const bound = next.get(key);
        if (bound && !bound.equals(value)) consistent = false;
        else next.set(key, value);
      }
      if (consistent) visit(index + 1, next);
    }
  };
  visit(0, new Map());
  return [...found.values()];
}

function conflict(detail: string, type: string): HttpProblem {
  return new HttpProblem(409, detail, { type });
}

function instantiate(pattern: TriplePattern, binding: Binding, freshBlankNodes: Map<string, Term>): Quad {
  const bind = (term: Term): Term => {
    if (term.termType === 'Variable') {
      const value = binding.get(`?${term.value}`);
      if (!value) throw new HttpProblem(422, `The variable ?${term.value} is not bound by the where clause.`, { type: 'patch-unbound-variable' });
      return value;
    }
    if (term.termType === 'BlankNode') {
      if (!freshBlankNodes.has(term.value)) freshBlankNodes.set(term.value, blankNode());
      return freshBlankNodes.get(term.value)!;
    }
    return term;
  };
  return quad(bind(pattern.subject) as Quad['subject'], bind(pattern.predicate) as Quad['predicate'], bind(pattern.object) as Quad['object'], defaultGraph());
}

function describe(q: Quad): string {
  const show = (t: Term) => (t.termType === 'NamedNode' ? `<${t.value}>` : t.termType === 'Literal' ? JSON.stringify(t.value) : `_:${t.value}`);
  return `${show(q.subject)} ${show(q.predicate)} ${show(q.object)}`;
}

/** Triples checked, deleted or inserted between pauses (see cooperative.ts). */
const TRIPLES_PER_SLICE = 1000;

/**
 * Applies the operations in order to the default graph of the store; throws (changing nothing stored) on a
 * conflict. Answers the triples it inserted that the store did not hold, in the order inserted.
 */
export async function applyPatch(store: Store, operations: readonly PatchOperation[]): Promise<Quad[]> {
  const pacer = new Pacer(TRIPLES_PER_SLICE);
  const inserted: Quad[] = [];
  for (const operation of operations) {
    let binding: Binding = new Map();
    if (operation.where.length > 0) {
      const bindings = findBindings(store, operation.where, 2);
      if (bindings.length === 0) throw conflict('The where clause matches nothing in the resource.', 'patch-no-match');
      if (bindings.length > 1) throw conflict('The where clause matches more than one binding; make it specific enough to match exactly one.', 'patch-ambiguous-match');
      binding = bindings[0]!;
    }
    const deletions = operation.deletes.map((pattern) => instantiate(pattern, binding, new Map()));
    for (const deletion of deletions) {
      if (!store.has(deletion)) throw conflict(`The triple to delete is not in the resource: ${describe(deletion)}.`, 'patch-delete-missing');
      await pacer.done(1);
    }
    const freshBlankNodes = new Map<string, Term>();
    const insertions = operation.inserts.map((pattern) => instantiate(pattern, binding, freshBlankNodes));
    for (const deletion of deletions) {
      store.removeQuad(deletion);
      await pacer.done(1);
    }
    for (const insertion of insertions) {
      if (store.addQuad(insertion)) inserted.push(insertion);
      await pacer.done(1);
    }
  }
  return inserted;
}
