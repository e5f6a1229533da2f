import { DataFactory, type Quad } from 'n3';
import type { ResourceMeta } from '../storage/types.ts';
import { BoundedCache } from '../storage/bounded-cache.ts';
import { LDP } from '../http/headers.ts';
import { isHiddenFromListing } from './auxiliary.ts';
import { laidOutBody, layoutPieces, splicedBody, type LaidOutBody, type ListingLayout } from './listing-layout.ts';
import type { StorageDriver } from '../storage/types.ts';

const DCTERMS = 'http://purl.org/dc/terms/';
const STAT = 'http://www.w3.org/ns/posix/stat#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

export interface Listing {
  container: ResourceMeta;
  members: ResourceMeta[];
}

function visibleSorted(members: Iterable<ResourceMeta>): ResourceMeta[] {
  const visible: ResourceMeta[] = [];
  for (const member of members) if (!isHiddenFromListing(member.path)) visible.push(member);
  return visible.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** The visible members of a driver's reusable `children` array. */
const visibleOf = new WeakMap<readonly ResourceMeta[], ResourceMeta[]>();
const encoder = new TextEncoder();

/** Reads a container's visible members: auxiliary resources and server files are left out. */
export async function readListing(storage: StorageDriver, container: ResourceMeta): Promise<Listing> {
  if (storage.children) {
    const children = await storage.children(container.path);
    let members = visibleOf.get(children);
    if (!members) {
      members = visibleSorted(children);
      visibleOf.set(children, members);
    }
    return { container, members };
  }
  const members: ResourceMeta[] = [];
  for await (const member of storage.list(container.path)) members.push(member);
  return { container, members: visibleSorted(members) };
}

/**
 * The UTF-8 bytes of a text made in pieces, each written into one growing array as it comes (room for
 * `sizeHint` bytes first): a large listing is never one string, and no piece outlives its turn.
 */
export function encodePieces(pieces: Iterable<string>, sizeHint = 0): Uint8Array<ArrayBuffer> {
  let bytes = new Uint8Array(Math.max(sizeHint, 256));
  let length = 0;
  for (let piece of pieces) {
    for (;;) {
      const { read, written } = encoder.encodeInto(piece, bytes.subarray(length));
      length += written;
      if (read === piece.length) break;
      // Full: room for the rest at up to three bytes a UTF-16 unit.
      piece = piece.slice(read);
      const larger = new Uint8Array(Math.max(bytes.length + (bytes.length >> 1), length + piece.length * 3));
      larger.set(bytes.subarray(0, length));
      bytes = larger;
    }
  }
  // A little room left over stays (copying a large body costs more); more is given back.
  return bytes.length - length <= bytes.length >> 3 ? bytes.subarray(0, length) : bytes.slice(0, length);
}

/**
 * What a member's metadata keeps alive (its path and ETag strings, the object, the array's slot), as the fs
 * driver's listings hold them (measured with `npm run bench:cache-weights`). A body counts the members it keeps
 * even when the driver's listing or another media type's body keeps the same ones.
 */
const BYTES_PER_MEMBER = 250;
/** What a body not made yet is charged per member (a Turtle member takes ~160 bytes, a JSON-LD one ~240). */
const BODY_BYTES_PER_MEMBER_GUESS = 240;
/** Room first made for a Turtle member's bytes (a JSON-LD one gets BODY_BYTES_PER_MEMBER_GUESS). */
const TURTLE_BYTES_PER_MEMBER = 160;

interface CachedBody {
  members: readonly ResourceMeta[];
  containerEtag: string;
  body: Promise<Uint8Array<ArrayBuffer>>;
  bytes?: number;
  /** The body made, with where its members' texts are: the next version's body is made from it. */
  laidOut?: LaidOutBody;
}

/** How a body is made: a layout (Turtle, JSON-LD), which a later version's body is spliced from, or text made whole. */
export type BodyMaker = { layout: (listing: Listing) => ListingLayout; sizeHint: number } | (() => Uint8Array<ArrayBuffer> | string | Promise<string>);

/**
 * Listing bodies, encoded once and reused while the driver hands out the same members array and the
 * container's ETag is the same (an unchanged container); requests that arrive while one is being made wait
 * for it. One entry per container, origin and media type: a changed container replaces its body, so no
 * body of a version nobody can ask for stays. Bounded in bytes: a body counts its encoded size plus the
 * members it keeps alive (1,000 members: ~160 KB of Turtle or ~240 KB of JSON-LD, ~250 KB of members).
 */
export class ListingBodies {
  readonly #entries: BoundedCache<string, CachedBody>;

  constructor(maxBytes: number) {
    this.#entries = new BoundedCache(maxBytes, (entry) => (entry.bytes ?? entry.members.length * BODY_BYTES_PER_MEMBER_GUESS) + entry.members.length * BYTES_PER_MEMBER);
  }

  /**
   * `key` names everything the body depends on besides the listing itself (container path, origin, media
   * type). A body made by a layout is made from the previous body for the key where it can (the members
   * unchanged since keep their bytes).
   */
  body(listing: Listing, key: string, make: BodyMaker): Promise<Uint8Array<ArrayBuffer>> {
    const cached = this.#entries.get(key);
    if (cached && cached.members === listing.members && cached.containerEtag === listing.container.etag) return cached.body;
    let laidOut: LaidOutBody | undefined;
    let body: Promise<Uint8Array<ArrayBuffer>>;
    if (typeof make === 'function') body = Promise.resolve(make()).then((made) => (typeof made === 'string' ? encoder.encode(made) : made));
    else {
      const layout = make.layout(listing);
      const made = (cached?.laidOut && splicedBody(cached.laidOut, listing.members, layout)) || laidOutBody(listing.members, layout, (pieces) => encodePieces(pieces, make.sizeHint));
      laidOut = made instanceof Uint8Array ? undefined : made;
      body = Promise.resolve(made instanceof Uint8Array ? made : made.bytes);
    }
    const entry: CachedBody = { members: listing.members, containerEtag: listing.container.etag, body, ...(laidOut && { laidOut }) };
    this.#entries.set(key, entry);
    body.then(
      (bytes) => {
        // Charged again at its real size, if it is still cached.
        if (this.#entries.peek(key) !== entry) return;
        // Where the members' texts are: two offsets a member.
        entry.bytes = bytes.buffer.byteLength + (entry.laidOut ? entry.members.length * 8 : 0);
        this.#entries.set(key, entry);
      },
      () => {
        if (this.#entries.peek(key) === entry) this.#entries.delete(key);
      },
    );
    return body;
  }
}

/** The listing bodies of a storage, made with the bound its first request gives. */
const bodiesOf = new WeakMap<object, ListingBodies>();
export function listingBodiesOf(storage: StorageDriver, maxBytes: () => number): ListingBodies {
  let bodies = bodiesOf.get(storage);
  if (!bodies) bodiesOf.set(storage, (bodies = new ListingBodies(maxBytes())));
  return bodies;
}

const CONTEXT = {
  ldp: LDP,
  dcterms: DCTERMS,
  stat: STAT,
  xsd: XSD,
  contains: { '@id': 'ldp:contains', '@type': '@id' },
  modified: { '@id': 'dcterms:modified', '@type': 'xsd:dateTime' },
  mtime: { '@id': 'stat:mtime', '@type': 'xsd:decimal' },
  size: { '@id': 'stat:size', '@type': 'xsd:integer' },
};

function types(meta: ResourceMeta): string[] {
  return meta.isContainer ? ['ldp:Container', 'ldp:BasicContainer', 'ldp:Resource'] : ['ldp:Resource'];
}

/** The last second `isoDateTime` wrote, and its text up to the milliseconds: members written together share it. */
let isoSecond = NaN;
let isoSecondText = '';
/** The latest time `toISOString` writes with a four-digit year. */
const LAST_FOUR_DIGIT_YEAR_MS = 253402300799999;

/** `new Date(ms).toISOString()`, without a Date or a formatting of the whole date for each member. */
export function isoDateTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const millis = ms % 1000;
  const second = ms - millis;
  if (second !== isoSecond) {
    isoSecondText = new Date(second).toISOString().slice(0, -4);
    isoSecond = second;
  }
  return `${isoSecondText}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

/** `String(ms / 1000)` (seconds as a decimal, as stat:mtime gives them), without a division and a number's formatting. */
export function decimalSeconds(ms: number): string {
  // Up to 15 digits the shortest decimal that gives back ms / 1000 is ms's own digits, the point moved.
  if (!Number.isInteger(ms) || ms < 0 || ms >= 1e15) return String(ms / 1000);
  const millis = ms % 1000;
  const seconds = (ms - millis) / 1000;
  if (millis === 0) return String(seconds);
  const fraction = millis % 100 === 0 ? millis / 100 : millis % 10 === 0 ? (millis < 100 ? '0' : '') + millis / 10 : (millis < 10 ? '00' : millis < 100 ? '0' : '') + millis;
  return `${seconds}.${fraction}`;
}

function node(meta: ResourceMeta, url: (path: string) => string): Record<string, unknown> {
  return {
    '@id': url(meta.path),
    '@type': types(meta),
    modified: isoDateTime(meta.modified),
    mtime: decimalSeconds(meta.modified),
    size: String(meta.size),
  };
}

/** How the listing bodies of a media type are made (see ListingBodies.body). */
export function jsonLdBodies(url: (path: string) => string, members: number): BodyMaker {
  return { layout: (listing) => jsonLdLayout(listing, url), sizeHint: 1024 + members * BODY_BYTES_PER_MEMBER_GUESS };
}

export function turtleBodies(url: (path: string) => string, members: number): BodyMaker {
  return { layout: (listing) => turtleLayout(listing, url), sizeHint: 1024 + members * TURTLE_BYTES_PER_MEMBER };
}

/** The listing's JSON-LD body, encoded as its pieces are made. */
export function listingJsonLdBytes(listing: Listing, url: (path: string) => string): Uint8Array<ArrayBuffer> {
  return encodePieces(listingToJsonLd(listing, url), 1024 + listing.members.length * BODY_BYTES_PER_MEMBER_GUESS);
}

/** The listing's Turtle body, encoded as its pieces are made. */
export function listingTurtleBytes(listing: Listing, url: (path: string) => string): Uint8Array<ArrayBuffer> {
  return encodePieces(listingToTurtle(listing, url), 1024 + listing.members.length * TURTLE_BYTES_PER_MEMBER);
}

/**
 * The listing as a compact JSON-LD document, written directly (no JSON-LD processing on this hot path): the
 * text of `JSON.stringify` of the whole document (the container's node, its `contains` written one IRI at a
 * time, then one node per member).
 */
function jsonLdLayout(listing: Listing, url: (path: string) => string): ListingLayout {
  return {
    head: `{"@context":${JSON.stringify(CONTEXT)},"@graph":[${JSON.stringify(node(listing.container, url)).slice(0, -1)},"contains":[`,
    first: (member, _, parts) => void parts.push(jsonString(url(member.path))),
    firstSeparator: ',',
    middle: ']}',
    second: (member, _, parts) => void parts.push(',', JSON.stringify(node(member, url))),
    secondSeparator: '',
    tail: ']}',
  };
}

/** What JSON.stringify writes of a string; a call to it spared for one with nothing to escape (an IRI mostly). */
const ESCAPED_IN_JSON = /["\\\u0000-\u001f\ud800-\udfff]/;
function jsonString(text: string): string {
  return ESCAPED_IN_JSON.test(text) ? JSON.stringify(text) : `"${text}"`;
}

export function listingToJsonLd(listing: Listing, url: (path: string) => string): Generator<string> {
  return layoutPieces(listing.members, jsonLdLayout(listing, url));
}

const TURTLE_PREFIXES = `@prefix ldp: <${LDP}>.\n@prefix dcterms: <${DCTERMS}>.\n@prefix stat: <${STAT}>.\n@prefix xsd: <${XSD}>.\n`;
const DECIMAL = /^[+-]?[0-9]*\.[0-9]+$/;
const INTEGER = /^[+-]?[0-9]+$/;

/** A member's IRI relative to its container's, as Turtle allows; `./` keeps a name with a colon from reading as a scheme. */
function relativeIri(iri: string, base: string): string {
  if (!iri.startsWith(base) || iri.length === base.length) return `<${iri}>`;
  const rest = iri.slice(base.length);
  const firstSegment = rest.slice(0, rest.indexOf('/') + 1 || undefined);
  return firstSegment.includes(':') ? `<./${rest}>` : `<${rest}>`;
}

/** The statements about one member or the container, added to `parts` (see layoutPieces). */
function turtleDescription(meta: ResourceMeta, subject: string, parts: string[]): void {
  const mtime = decimalSeconds(meta.modified);
  const size = String(meta.size);
  parts.push(
    subject,
    meta.isContainer ? ' a ldp:Container, ldp:BasicContainer, ldp:Resource;\n    dcterms:modified "' : ' a ldp:Resource;\n    dcterms:modified "',
    isoDateTime(meta.modified),
    '"^^xsd:dateTime;\n    stat:mtime ',
    DECIMAL.test(mtime) ? mtime : `"${mtime}"^^xsd:decimal`,
    ';\n    stat:size ',
    INTEGER.test(size) ? size : `"${size}"^^xsd:integer`,
  );
}

/**
 * The listing as Turtle, written directly: the same statements as `listingToQuads`, with prefixes and member
 * IRIs relative to the container's (the document's base), in pieces.
 */
function turtleLayout(listing: Listing, url: (path: string) => string): ListingLayout {
  const base = url(listing.container.path);
  // Each member's IRI is written twice (its `ldp:contains`, its description): made once, when first needed.
  const subjects: (string | undefined)[] = new Array(listing.members.length);
  const subject = (member: ResourceMeta, index: number) => (subjects[index] ??= relativeIri(url(member.path), base));
  const head = [TURTLE_PREFIXES, '\n'];
  turtleDescription(listing.container, '<>', head);
  if (listing.members.length > 0) head.push(';\n    ldp:contains ');
  return {
    head: head.join(''),
    first: (member, index, parts) => void parts.push(subject(member, index)),
    firstSeparator: ', ',
    middle: '.\n',
    second: (member, index, parts) => {
      turtleDescription(member, subject(member, index), parts);
      parts.push('.\n');
    },
    secondSeparator: '',
    tail: '',
  };
}

export function listingToTurtle(listing: Listing, url: (path: string) => string): Generator<string> {
  return layoutPieces(listing.members, turtleLayout(listing, url));
}

/** The same statements as quads, for Turtle and N-Triples. */
export function listingToQuads(listing: Listing, url: (path: string) => string): Quad[] {
  const { namedNode, literal, quad } = DataFactory;
  const quads: Quad[] = [];
  const describe = (meta: ResourceMeta) => {
    const subject = namedNode(url(meta.path));
    for (const type of types(meta)) quads.push(quad(subject, namedNode(RDF_TYPE), namedNode(LDP + type.slice(4))));
    quads.push(quad(subject, namedNode(DCTERMS + 'modified'), literal(isoDateTime(meta.modified), namedNode(XSD + 'dateTime'))));
    quads.push(quad(subject, namedNode(STAT + 'mtime'), literal(decimalSeconds(meta.modified), namedNode(XSD + 'decimal'))));
    quads.push(quad(subject, namedNode(STAT + 'size'), literal(String(meta.size), namedNode(XSD + 'integer'))));
  };
  describe(listing.container);
  const containerNode = namedNode(url(listing.container.path));
  for (const member of listing.members) quads.push(quad(containerNode, namedNode(LDP + 'contains'), namedNode(url(member.path))));
  for (const member of listing.members) describe(member);
  return quads;
}
