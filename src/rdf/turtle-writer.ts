import { DataFactory, Writer, type Quad, type Term } from 'n3';
import { cooperation, Pacer } from './cooperative.ts';

const { blankNode, quad } = DataFactory;
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const FIRST = `${RDF}first`;
const REST = `${RDF}rest`;
const NIL = `${RDF}nil`;
/** Deeper chains of inline blank nodes continue under a label, so a long chain cannot exhaust the stack. */
const MAX_INLINE_DEPTH = 32;
/**
 * Lists are written as `( … )` this many items at a time. A longer list is written so only where it is the
 * object of a subject's triple, its items made in slices with pauses between them; deeper in, it is written
 * as its rdf:first/rest nodes, subject by subject with pauses.
 */
const MAX_INLINE_LIST_ITEMS = 1000;
/** Quads written between pauses: n3's writer takes some 10–20 µs a quad (relative IRIs), so a few milliseconds. */
export const QUADS_PER_SLICE = 500;

/**
 * Renames blank nodes b0, b1, … in order of appearance. The n3 parser prefixes the labels of every parse,
 * so without this a resource patched a thousand times would carry labels a thousand prefixes long.
 */
export async function relabelBlankNodes(quads: readonly Quad[]): Promise<Quad[]> {
  const labels = new Map<string, Term>();
  const rename = <T extends Term>(term: T): T => {
    if (term.termType !== 'BlankNode') return term;
    let renamed = labels.get(term.value);
    if (!renamed) labels.set(term.value, (renamed = blankNode(`b${labels.size}`)));
    return renamed as T;
  };
  const pacer = new Pacer(QUADS_PER_SLICE * 4);
  const relabelled: Quad[] = [];
  for (const q of quads) {
    relabelled.push(quad(rename(q.subject), q.predicate, rename(q.object), rename(q.graph)));
    if (pacer.due(1)) await cooperation.pause();
  }
  return relabelled;
}

/**
 * Writes default-graph quads as Turtle a person can read: a blank node referenced exactly once is written
 * inline as `[ … ]`, a well-formed list as `( … )`; shared or cyclic blank nodes keep a label.
 */
export async function writeTurtle(quads: readonly Quad[], baseIRI: string, prefixes: Record<string, string>): Promise<string> {
  const writer = new Writer({ format: 'text/turtle', baseIRI, prefixes });
  const bySubject = new Map<string, { subject: Term; quads: Quad[] }>();
  const references = new Map<string, number>();
  const key = (term: Term) => `${term.termType}:${term.value}`;
  const grouping = new Pacer(QUADS_PER_SLICE * 4);
  for (const q of await relabelBlankNodes(quads)) {
    if (grouping.due(1)) await cooperation.pause();
    const entry = bySubject.get(key(q.subject)) ?? { subject: q.subject, quads: [] };
    entry.quads.push(q);
    bySubject.set(key(q.subject), entry);
    if (q.object.termType === 'BlankNode') references.set(q.object.value, (references.get(q.object.value) ?? 0) + 1);
  }
  const ownQuads = (node: Term) => bySubject.get(key(node))?.quads ?? [];
  const referencedOnce = (node: Term) => node.termType === 'BlankNode' && references.get(node.value) === 1;

  /** Nodes whose list, from them on, is not written as `( … )`: a walk that fails fails the same way from any node it passed. */
  const notInline = new Set<string>();
  /** Lists `longList` walked and left to `render` (short ones), by their head's key: walked once, not twice. */
  const walked = new Map<string, { items: Term[]; nodeKeys: string[] }>();
  /**
   * The members of the list starting at `head`, or null unless every node is a blank node with just rdf:first and
   * rdf:rest, referenced once, and there are at most MAX_INLINE_LIST_ITEMS of them.
   */
  const listItems = (head: Term): { items: Term[]; nodeKeys: string[] } | null => {
    const known = walked.get(key(head));
    if (known) {
      walked.delete(key(head));
      return known;
    }
    const items: Term[] = [];
    const nodeKeys: string[] = [];
    const seen = new Set<string>();
    const fail = () => {
      for (const nodeKey of nodeKeys) notInline.add(nodeKey);
      notInline.add(key(head));
      return null;
    };
    for (let node = head; !(node.termType === 'NamedNode' && node.value === NIL); ) {
      const nodeKey = key(node);
      if (notInline.has(nodeKey) || !referencedOnce(node) || seen.has(nodeKey) || nodeKeys.length === MAX_INLINE_LIST_ITEMS) return fail();
      seen.add(nodeKey);
      const own = ownQuads(node);
      const first = own.find((q) => q.predicate.value === FIRST);
      const rest = own.find((q) => q.predicate.value === REST);
      if (own.length !== 2 || !first || !rest) return fail();
      nodeKeys.push(nodeKey);
      items.push(first.object);
      node = rest.object;
    }
    return { items, nodeKeys };
  };

  const written = new Set<string>();
  /** n3's pre-serialized term: what `writer.list` returns, made here for a list written in slices. */
  const SerializedTerm = (writer.list([]) as unknown as { constructor: new (id: string) => Term }).constructor;
  /** The text of `list(items)` between its parentheses. */
  const listContents = (items: readonly Term[]) => (writer.list(items as Quad['object'][]) as unknown as { id: string }).id.slice(1, -1);

  /**
   * A list longer than MAX_INLINE_LIST_ITEMS starting at `head`, as one `( … )` made in slices; null for any
   * other term (shorter lists and everything else are left to `render`).
   */
  const longList = async (head: Term): Promise<Term | null> => {
    if (!referencedOnce(head) || written.has(key(head)) || notInline.has(key(head))) return null;
    const items: Term[] = [];
    /** The keys of the list's nodes, in order. */
    const nodes = new Set<string>();
    const walking = new Pacer(QUADS_PER_SLICE * 4);
    for (let node = head; !(node.termType === 'NamedNode' && node.value === NIL); ) {
      const nodeKey = key(node);
      const own = bySubject.get(nodeKey)?.quads ?? [];
      const first = own.find((q) => q.predicate.value === FIRST);
      const rest = own.find((q) => q.predicate.value === REST);
      if (notInline.has(nodeKey) || !referencedOnce(node) || nodes.has(nodeKey) || own.length !== 2 || !first || !rest) {
        for (const passed of nodes) notInline.add(passed);
        notInline.add(key(head));
        return null;
      }
      nodes.add(nodeKey);
      items.push(first.object);
      node = rest.object;
      if (walking.due(1)) await cooperation.pause();
    }
    if (items.length <= MAX_INLINE_LIST_ITEMS) {
      walked.set(key(head), { items, nodeKeys: [...nodes] });
      return null;
    }
    for (const nodeKey of nodes) {
      written.add(nodeKey);
      if (walking.due(1)) await cooperation.pause();
    }
    const parts: string[] = [];
    for (let from = 0; from < items.length; from += MAX_INLINE_LIST_ITEMS) {
      parts.push(listContents(items.slice(from, from + MAX_INLINE_LIST_ITEMS).map((item) => render(item, 2))));
      await cooperation.pause();
    }
    return new SerializedTerm(`(${parts.join(' ')})`);
  };

  const render = (term: Term, depth: number): Term => {
    if (term.termType === 'NamedNode' && term.value === NIL) return writer.list([]) as unknown as Term;
    if (!referencedOnce(term) || written.has(key(term)) || depth > MAX_INLINE_DEPTH) return term;
    written.add(key(term));
    const list = listItems(term);
    if (list) {
      for (const nodeKey of list.nodeKeys) written.add(nodeKey);
      // @types/n3 declares an array here; the writer returns one pre-serialized term.
      return writer.list(list.items.map((item) => render(item, depth + 1)) as Quad['object'][]) as unknown as Term;
    }
    return writer.blank(ownQuads(term).map((q) => ({ predicate: q.predicate, object: render(q.object, depth + 1) as Quad['object'] })));
  };
  // A large graph is written in slices with pauses between them (see cooperative.ts), within a subject too.
  const writing = new Pacer(QUADS_PER_SLICE);
  const writeSubject = async (subject: Term) => {
    written.add(key(subject));
    for (const q of ownQuads(subject)) {
      const object = (await longList(q.object)) ?? render(q.object, 1);
      writer.addQuad(subject as Quad['subject'], q.predicate, object as Quad['object']);
      if (writing.due(1)) await cooperation.pause();
    }
  };

  // Subjects nobody points at once come first; blank nodes referenced once are written where they are
  // referenced. What is left after that (cycles of such blank nodes, chains too deep to inline) gets a label.
  for (const { subject } of bySubject.values()) {
    if (!referencedOnce(subject)) await writeSubject(subject);
    else if (writing.due(1)) await cooperation.pause();
  }
  for (const { subject } of bySubject.values()) {
    if (!written.has(key(subject))) await writeSubject(subject);
    else if (writing.due(1)) await cooperation.pause();
  }
  return new Promise((resolve, reject) => writer.end((error, result) => (error ? reject(error) : resolve(result))));
}
