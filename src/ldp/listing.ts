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

/** Reads a container's visible members: auxiliary resources and server files are left out. */
export async function readListing(storage: StorageDriver, container: ResourceMeta): Promise<Listing> {
  const members: ResourceMeta[] = [];
  for await (const member of storage.list(container.path)) {
    if (!isHiddenFromListing(member.path)) members.push(member);
  }
  members.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { container, members };
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
