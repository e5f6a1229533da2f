import type { Quad } from 'n3';
import { MAX_NESTING, tooDeep } from '../http/nesting.ts';
import { cooperation, Pacer } from './cooperative.ts';
import { endOfOpaqueToken } from './opaque-tokens.ts';

const RDF_FIRST = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#first';
const RDF_REST = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#rest';


/**
 * The deepest nesting of `{ }`, `[ ]` and `( )` in Turtle, N3 or SPARQL text, skipping strings, IRIs and
 * comments, in one pass; it stops counting past `limit`. Run before parsing: the SPARQL parser takes time
 * that grows faster than the depth (6,000 levels held the event loop about ten seconds).
 */
export function syntaxNesting(text: string, limit = MAX_NESTING): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (char === '{' || char === '[' || char === '(') {
      depth += 1;
      if (depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if (char === '}' || char === ']' || char === ')') {
      depth = Math.max(0, depth - 1);
    } else if (char === '\\') {
      i++;
    } else {
      i = endOfOpaqueToken(text, i);
    }
  }
  return deepest;
}

/** Refuses Turtle, N3 or SPARQL text that nests deeper than MAX_NESTING, before it reaches a parser. */
export function requireShallowSyntax(text: string, language: string): void {
  const depth = syntaxNesting(text);
  if (depth > MAX_NESTING) throw tooDeep(`The ${language} body`, depth);
}

/** Quads (or list nodes) looked at between pauses while a graph is checked: a few milliseconds of work. */
const GRAPH_CHECK_PER_SLICE = 20_000;

/**
 * How deeply RDF lists nest in a graph: 1 for a list, 2 for a list inside a list (its `rdf:first`), and so on.
 * JSON-LD writes such lists as nested `@list` arrays and compaction recurses at each level (1,000 levels
 * overflowed the stack); blank nodes are written flat in JSON-LD, and the Turtle writer stops inlining them at
 * a fixed depth, so only lists count. Cycles count once. Linear in the number of quads, over numbered nodes
 * and typed arrays, with pauses (a list of 300,000 items is 600,000 quads).
 */
export async function graphNesting(quads: readonly Quad[]): Promise<number> {
  const pacer = new Pacer(GRAPH_CHECK_PER_SLICE);
  const numbers = new Map<string, number>();
  for (const q of quads) {
    if (q.predicate.value === RDF_FIRST && q.subject.termType === 'BlankNode' && !numbers.has(q.subject.value)) numbers.set(q.subject.value, numbers.size);
    if (pacer.due(1)) await cooperation.pause();
  }
  const count = numbers.size;
  if (count === 0) return 0;
  // Edges between list nodes, by source (compressed rows): rdf:first weighs 1 (a level deeper), rdf:rest 0.
  const edgeOf = (q: Quad): number => {
    if (q.subject.termType !== 'BlankNode' || q.object.termType !== 'BlankNode') return -1;
    const weight = q.predicate.value === RDF_FIRST ? 1 : q.predicate.value === RDF_REST ? 0 : -1;
    return weight >= 0 && numbers.has(q.subject.value) && numbers.has(q.object.value) ? weight : -1;
  };
  const start = new Int32Array(count + 1);
  for (const q of quads) {
    if (edgeOf(q) >= 0) start[numbers.get(q.subject.value)! + 1]!++;
    if (pacer.due(1)) await cooperation.pause();
  }
  for (let node = 0; node < count; node++) start[node + 1]! += start[node]!;
  const target = new Int32Array(start[count]!);
  const weight = new Uint8Array(start[count]!);
  const filled = start.slice(0, count);
  for (const q of quads) {
    const w = edgeOf(q);
    if (w < 0) continue;
    const at = filled[numbers.get(q.subject.value)!]!++;
    target[at] = numbers.get(q.object.value)!;
    weight[at] = w;
    if (pacer.due(1)) await cooperation.pause();
  }
  numbers.clear();

  /** Depth below each node once known (-1: not yet); depth first without recursion, so no chain exhausts the stack. */
  const depth = new Int32Array(count).fill(-1);
  const onPath = new Uint8Array(count);
  const stack = new Int32Array(count);
  const nextEdge = new Int32Array(count);
  const best = new Int32Array(count);
  let deepest = 0;
  for (let root = 0; root < count; root++) {
    if (depth[root] !== -1) continue;
    let top = 0;
    stack[0] = root;
    nextEdge[root] = start[root]!;
    best[root] = 0;
    onPath[root] = 1;
    while (top >= 0) {
      const node = stack[top]!;
      if (nextEdge[node]! < start[node + 1]!) {
        const edge = nextEdge[node]!++;
        const to = target[edge]!;
        if (depth[to] !== -1) best[node] = Math.max(best[node]!, weight[edge]! + depth[to]!);
        else if (onPath[to]) best[node] = Math.max(best[node]!, weight[edge]!);
        else {
          stack[++top] = to;
          nextEdge[to] = start[to]!;
          best[to] = 0;
          onPath[to] = 1;
        }
        continue;
      }
      top--;
      onPath[node] = 0;
      depth[node] = best[node]!;
      if (top >= 0) {
        const parent = stack[top]!;
        best[parent] = Math.max(best[parent]!, weight[nextEdge[parent]! - 1]! + depth[node]!);
      }
      if (pacer.due(1)) await cooperation.pause();
    }
    deepest = Math.max(deepest, depth[root]!);
  }
  return deepest + 1;
}

/** Refuses a graph whose lists nest deeper than MAX_NESTING: it could be stored but not served. */
export async function requireShallowGraph(quads: readonly Quad[]): Promise<void> {
  const depth = await graphNesting(quads);
  if (depth > MAX_NESTING) throw tooDeep('The RDF graph (lists inside lists)', depth);
}
