import { DataFactory, type Quad } from 'n3';
import type { ResourceMeta } from '../storage/types.ts';
import { LDP } from '../http/headers.ts';
import { isHiddenFromListing } from './auxiliary.ts';
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

/** The visible members of a driver's reusable `children` array, and the bodies made from those members. */
const visibleOf = new WeakMap<readonly ResourceMeta[], ResourceMeta[]>();
const bodiesOf = new WeakMap<readonly ResourceMeta[], Map<string, string>>();
const BODIES_PER_LISTING = 4;

/** Reads a container's visible members: auxiliary resources and server files are left out. */
export async function readListing(storage: StorageDriver, container: ResourceMeta): Promise<Listing> {
  if (storage.children) {
    const children = await storage.children(container.path);
    let members = visibleOf.get(children);
    if (!members) {
      members = visibleSorted(children);
      visibleOf.set(children, members);
      bodiesOf.set(members, new Map());
    }
    return { container, members };
  }
  const members: ResourceMeta[] = [];
  for await (const member of storage.list(container.path)) members.push(member);
  return { container, members: visibleSorted(members) };
}

/**
 * A body made from a listing, reused while the driver hands out the same members (an unchanged container):
 * `key` must name everything else the body depends on (origin, media type, the container's ETag).
 */
export async function listingBody(listing: Listing, key: string, make: () => string | Promise<string>): Promise<string> {
  const bodies = bodiesOf.get(listing.members);
  const cached = bodies?.get(key);
  if (cached !== undefined) return cached;
  const body = await make();
  if (bodies) {
    if (bodies.size >= BODIES_PER_LISTING) bodies.clear();
    bodies.set(key, body);
  }
  return body;
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

function node(meta: ResourceMeta, url: (path: string) => string): Record<string, unknown> {
  return {
    '@id': url(meta.path),
    '@type': types(meta),
    modified: new Date(meta.modified).toISOString(),
    mtime: String(meta.modified / 1000),
    size: String(meta.size),
  };
}

/** The listing as a compact JSON-LD document, written directly (no JSON-LD processing on this hot path). */
export function listingToJsonLd(listing: Listing, url: (path: string) => string): string {
  const containerNode = { ...node(listing.container, url), contains: listing.members.map((m) => url(m.path)) };
  return JSON.stringify({
    '@context': CONTEXT,
    '@graph': [containerNode, ...listing.members.map((m) => node(m, url))],
  });
}

/** The same statements as quads, for Turtle and N-Triples. */
export function listingToQuads(listing: Listing, url: (path: string) => string): Quad[] {
  const { namedNode, literal, quad } = DataFactory;
  const quads: Quad[] = [];
  const describe = (meta: ResourceMeta) => {
    const subject = namedNode(url(meta.path));
    for (const type of types(meta)) quads.push(quad(subject, namedNode(RDF_TYPE), namedNode(LDP + type.slice(4))));
    quads.push(quad(subject, namedNode(DCTERMS + 'modified'), literal(new Date(meta.modified).toISOString(), namedNode(XSD + 'dateTime'))));
    quads.push(quad(subject, namedNode(STAT + 'mtime'), literal(String(meta.modified / 1000), namedNode(XSD + 'decimal'))));
    quads.push(quad(subject, namedNode(STAT + 'size'), literal(String(meta.size), namedNode(XSD + 'integer'))));
  };
  describe(listing.container);
  const containerNode = namedNode(url(listing.container.path));
  for (const member of listing.members) quads.push(quad(containerNode, namedNode(LDP + 'contains'), namedNode(url(member.path))));
  for (const member of listing.members) describe(member);
  return quads;
}
