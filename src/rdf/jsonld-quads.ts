import { DataFactory, type Quad, type Term } from 'n3';
import { tooManyTriples, type RdfLimits } from './limits.ts';

const { namedNode, blankNode, literal, quad, defaultGraph } = DataFactory;

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF_TYPE = namedNode(`${RDF}type`);
const RDF_FIRST = namedNode(`${RDF}first`);
const RDF_REST = namedNode(`${RDF}rest`);
const RDF_NIL = namedNode(`${RDF}nil`);

type Subject = Quad['subject'];
type Graph = Quad['graph'];
type ExpandedObject = Record<string, unknown>;

/** An absolute IRI or a blank node identifier, as JSON-LD's RDF conversion requires; relative IRIs are dropped. */
const ABSOLUTE_OR_BLANK = /^([A-Za-z][A-Za-z0-9+\-.]*|_):[^\s]*$/;

const isObject = (value: unknown): value is ExpandedObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : value === undefined ? [] : [value]);

/** JSON Canonicalization Scheme (RFC 8785): sorted keys, ECMAScript number and string forms. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** xsd:double in canonical form, e.g. 1.5E0. */
const canonicalDouble = (value: number) => value.toExponential(15).replace(/(\d)0*e\+?/, '$1E');

function literalOf(value: ExpandedObject): Term {
  const lexical = value['@value'];
  const type = typeof value['@type'] === 'string' ? (value['@type'] as string) : undefined;
  if (type === '@json') return literal(canonicalJson(lexical), namedNode(`${RDF}JSON`));
  if (typeof lexical === 'boolean') return literal(String(lexical), namedNode(type ?? `${XSD}boolean`));
  if (typeof lexical === 'number' && (!Number.isInteger(lexical) || Math.abs(lexical) >= 1e21 || type === `${XSD}double`)) {
    return literal(canonicalDouble(lexical), namedNode(type ?? `${XSD}double`));
  }
  if (type === `${XSD}double` && typeof lexical === 'string') return literal(canonicalDouble(parseFloat(lexical)), namedNode(type));
  if (typeof lexical === 'number') return literal(lexical.toFixed(0), namedNode(type ?? `${XSD}integer`));
  if (typeof value['@language'] === 'string') return literal(String(lexical), value['@language']);
  return literal(String(lexical), namedNode(type ?? `${XSD}string`));
}

/**
 * Turns expanded JSON-LD into quads following JSON-LD 1.1 "Deserialize JSON-LD to RDF", in one pass over the
 * document. jsonld.js's `toRDF` first merges every node into a node map and, for each value it adds, scans all
 * the values the same property already has, which is quadratic in the values of one property: 40,000 values
 * held the event loop for over ten seconds. Here quads are emitted as nodes are met and duplicates dropped
 * with a set, so the time is linear in the size of the document. Without `rdfDirection`, `@direction` is
 * ignored, as jsonld.js does.
 *
 * Pieces of one document go in one by one (blank node labels shared by all pieces); past `limits.maxTriples`,
 * a 413 problem.
 */
export function jsonLdQuadWriter(limits?: RdfLimits): { readonly quads: Quad[]; add(expanded: unknown): void } {
  const maxQuads = limits?.maxTriples ?? Infinity;
  const quads: Quad[] = [];
  const seen = new Set<string>();
  const blankLabels = new Map<string, string>();
  let blankCount = 0;
  const freshBlank = () => blankNode(`b${blankCount++}`);

  // n3 term ids tell term types apart (IRIs here all have a scheme, literals start with a quote) and only a
  // literal can hold a space, so the joined ids name a quad unambiguously.
  const key = (term: Term): string => (term as Term & { id: string }).id;
  const emit = (subject: Subject, predicate: Quad['predicate'], object: Quad['object'], graph: Graph) => {
    const id = `${key(subject)} ${key(predicate)} ${key(object)} ${key(graph)}`;
    if (seen.has(id)) return;
    seen.add(id);
    if (quads.push(quad(subject, predicate, object, graph)) > maxQuads) throw tooManyTriples(limits!);
  };

  /** The term for an identifier; null for a relative IRI, which RDF cannot hold. */
  const identifier = (id: string): Subject | null => {
    if (id.startsWith('_:')) {
      let label = blankLabels.get(id);
      if (label === undefined) blankLabels.set(id, (label = `b${blankCount++}`));
      return blankNode(label);
    }
    return ABSOLUTE_OR_BLANK.test(id) ? namedNode(id) : null;
  };

  const isValueObject = (item: ExpandedObject) => '@value' in item;
  const isListObject = (item: ExpandedObject) => '@list' in item;

  /**
   * The RDF term of a property value; null when it has none. Nodes it holds are emitted into `graph` (none when
   * null); `linked` false means the value itself is not used, so a list builds no chain.
   */
  const objectOf = (item: unknown, graph: Graph | null, linked: boolean): Term | null => {
    if (!isObject(item)) return null;
    if (isValueObject(item)) return literalOf(item);
    if (isListObject(item)) {
      const members = asArray(item['@list']).map((member) => objectOf(member, graph, linked));
      if (!graph || !linked) return null;
      if (members.length === 0) return RDF_NIL;
      const head = freshBlank();
      let current: Subject = head;
      members.forEach((member, index) => {
        if (member) emit(current, RDF_FIRST, member as Quad['object'], graph);
        const next = index === members.length - 1 ? RDF_NIL : freshBlank();
        emit(current, RDF_REST, next, graph);
        current = next as Subject;
      });
      return head;
    }
    return node(item, graph);
  };

  /** Emits a node object's statements into `graph` (skipped when null) and returns its term. */
  const node = (item: ExpandedObject, graph: Graph | null): Subject | null => {
    const subject = typeof item['@id'] === 'string' ? identifier(item['@id']) : freshBlank();
    const target = subject ? graph : null;
    for (const type of asArray(item['@type'])) {
      const object = typeof type === 'string' ? identifier(type) : null;
      if (target && object) emit(subject!, RDF_TYPE, object, target);
    }
    for (const [property, values] of Object.entries(item)) {
      if (property === '@reverse' && isObject(values)) {
        for (const [reverse, items] of Object.entries(values)) {
          const predicate = identifier(reverse);
          for (const reverseItem of asArray(items)) {
            const other = isObject(reverseItem) ? node(reverseItem, graph) : null;
            if (graph && subject && other && predicate?.termType === 'NamedNode') emit(other, predicate, subject, graph);
          }
        }
      } else if (property === '@graph') {
        const named = subject as Graph | null;
        for (const member of asArray(values)) if (isObject(member) && !isValueObject(member) && !isListObject(member)) node(member, named);
      } else if (property === '@included') {
        for (const member of asArray(values)) if (isObject(member)) node(member, graph);
      } else if (!property.startsWith('@')) {
        const predicate = identifier(property);
        const linked = target !== null && predicate?.termType === 'NamedNode';
        for (const value of asArray(values)) {
          const object = objectOf(value, graph, linked);
          if (linked && object) emit(subject!, predicate as Quad['predicate'], object as Quad['object'], target!);
        }
      }
    }
    return subject;
  };

  return {
    quads,
    add(expanded) {
      for (const item of asArray(expanded)) {
        if (isObject(item) && !isValueObject(item) && !isListObject(item)) node(item, defaultGraph());
      }
    },
  };
}
