import type { Quad } from 'n3';
import { MAX_NESTING, tooDeep } from '../http/nesting.ts';

const RDF_REST = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#rest';

/** An IRI reference `<...>` (Turtle, N3 and SPARQL IRIREF); a `<` that starts none is an operator. */
const IRI_REFERENCE = /<[^<>"{}|^`\\\u0000-\u0020]*>/y;
const COMMENT = /#[^\n\r]*/y;

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
    } else if (char === '"' || char === "'") {
      const long = text.startsWith(char.repeat(3), i);
      const close = long ? char.repeat(3) : char;
      i += close.length;
      while (i < text.length && !text.startsWith(close, i)) {
        if (!long && (text[i] === '\n' || text[i] === '\r')) break;
        i += text[i] === '\\' ? 2 : 1;
      }
      i += close.length - 1;
    } else if (char === '<') {
      IRI_REFERENCE.lastIndex = i;
      if (IRI_REFERENCE.test(text)) i = IRI_REFERENCE.lastIndex - 1;
    } else if (char === '#') {
      COMMENT.lastIndex = i;
      COMMENT.test(text);
      i = COMMENT.lastIndex - 1;
    } else if (char === '\\') {
      i++;
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
 * How deeply blank nodes nest in a graph: the longest path from node to blank-node object, where a list's
 * `rdf:rest` does not add a level (a list is one level, a list inside a list two). Serializers write such
 * structures nested (JSON-LD lists of lists, Turtle's inline `[ ]`), recursing at each level. Cycles count
 * once. Linear in the number of quads.
 */
export function graphNesting(quads: readonly Quad[]): number {
  const edges = new Map<string, { to: string; weight: number }[]>();
  for (const q of quads) {
    if (q.object.termType !== 'BlankNode') continue;
    // Named subjects all start from one root, ''; no blank node label is empty.
    const from = q.subject.termType === 'BlankNode' ? q.subject.value : '';
    const list = edges.get(from) ?? [];
    if (list.length === 0) edges.set(from, list);
    list.push({ to: q.object.value, weight: q.predicate.value === RDF_REST ? 0 : 1 });
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
  // From the named nodes first, then from blank nodes that nothing named points to.
  let deepest = walk('');
  for (const node of edges.keys()) if (!depthOf.has(node)) deepest = Math.max(deepest, walk(node));
  return deepest;
}

/** Refuses a graph whose blank nodes nest deeper than MAX_NESTING: it could be stored but not served. */
export function requireShallowGraph(quads: readonly Quad[]): void {
  const depth = graphNesting(quads);
  if (depth > MAX_NESTING) throw tooDeep('The RDF graph (nested lists or blank nodes)', depth);
}
