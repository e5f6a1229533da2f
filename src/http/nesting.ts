import { HttpProblem } from './problem.ts';

/**
 * How deeply a request body may nest (JSON arrays and objects, brackets of Turtle, N3 and SPARQL, nested RDF
 * lists and blank nodes). Parsers and serializers recurse once or more per level; this keeps every request far
 * from the stack limit and its work proportional to its size, while real documents nest a handful of levels.
 */
export const MAX_NESTING = 100;

export function tooDeep(what: string, depth: number): HttpProblem {
  return new HttpProblem(422, `${what} nests ${depth} levels deep; this server accepts at most ${MAX_NESTING}.`, {
    type: 'too-deeply-nested',
    extra: { depth, limit: MAX_NESTING },
  });
}

/** Depth of a parsed JSON value (a scalar is 0, `[]` is 1), walked without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_NESTING): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) pending.push([child, level]);
    }
  }
  return deepest;
}

/** Refuses a parsed JSON body that nests deeper than MAX_NESTING; `what` names it for the client. */
export function requireShallowJson(value: unknown, what: string): void {
  const depth = jsonDepth(value);
  if (depth > MAX_NESTING) throw tooDeep(what, depth);
}
