import type { Quad } from 'n3';
import { MAX_NESTING, tooDeep } from '../http/nesting.ts';
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

/**
 * How deeply RDF lists nest in a graph: 1 for a list, 2 for a list inside a list (its `rdf:first`), and so on.
 * JSON-LD writes such lists as nested `@list` arrays and compaction recurses at each level (1,000 levels
 * overflowed the stack); blank nodes are written flat in JSON-LD, and the Turtle writer stops inlining them at
 * a fixed depth, so only lists count. Cycles count once. Linear in the number of quads.
 */
export function graphNesting(quads: readonly Quad[]): number {
  const listNodes = new Set<string>();
  for (const q of quads) if (q.predicate.value === RDF_FIRST && q.subject.termType === 'BlankNode') listNodes.add(q.subject.value);
  if (listNodes.size === 0) return 0;
  const edges = new Map<string, { to: string; weight: number }[]>();
  for (const q of quads) {
    if (q.subject.termType !== 'BlankNode' || q.object.termType !== 'BlankNode' || !listNodes.has(q.subject.value) || !listNodes.has(q.object.value)) continue;
    const weight = q.predicate.value === RDF_FIRST ? 1 : q.predicate.value === RDF_REST ? 0 : -1;
    if (weight < 0) continue;
    const list = edges.get(q.subject.value) ?? [];
    if (list.length === 0) edges.set(q.subject.value, list);
    list.push({ to: q.object.value, weight });
  }
  const depthOf = new Map<string, number>();
  const onPath = new Set<string>();
  /** Depth first without recursion, so a deep chain cannot exhaust the stack here either. */
  const walk = (root: string): number => {
    const stack: { node: string; out: { to: string; weight: number }[]; next: number; depth: number }[] = [];
    const enter = (node: string) => {
      onPath.add(node);
      stack.push({ node, out: edges.get(node) ?? [], next: 0, depth: 0 });
    };
    enter(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      if (frame.next < frame.out.length) {
        const { to, weight } = frame.out[frame.next++]!;
        const known = depthOf.get(to);
        if (known !== undefined) frame.depth = Math.max(frame.depth, weight + known);
        else if (onPath.has(to)) frame.depth = Math.max(frame.depth, weight);
        else enter(to);
        continue;
      }
      stack.pop();
      onPath.delete(frame.node);
      depthOf.set(frame.node, frame.depth);
      const parent = stack[stack.length - 1];
      if (parent) parent.depth = Math.max(parent.depth, parent.out[parent.next - 1]!.weight + frame.depth);
    }
    return depthOf.get(root)!;
  };
  let deepest = 0;
  for (const node of listNodes) if (!depthOf.has(node)) deepest = Math.max(deepest, walk(node));
  return deepest + 1;
}

/** Refuses a graph whose lists nest deeper than MAX_NESTING: it could be stored but not served. */
export function requireShallowGraph(quads: readonly Quad[]): void {
  const depth = graphNesting(quads);
  if (depth > MAX_NESTING) throw tooDeep('The RDF graph (lists inside lists)', depth);
}
