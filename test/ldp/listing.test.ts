import { Parser, Writer, type Quad } from 'n3';
import { describe, expect, it } from 'vitest';
import { decimalSeconds, encodePieces, isoDateTime, ListingBodies, listingToJsonLd, listingToQuads, listingToTurtle, type Listing } from '../../src/ldp/listing.ts';
import { parseRdf } from '../../src/rdf/convert.ts';
import type { ResourceMeta } from '../../src/storage/types.ts';

const BASE = 'https://pod.example/alice/box/';
const url = (path: string) => `https://pod.example/alice${path.split('/').map((segment) => encodeURIComponent(segment).replace(/%3A/g, ':')).join('/')}`;
const meta = (path: string, modified: number, size = 12): ResourceMeta => ({ path, isContainer: path.endsWith('/'), modified, size, etag: `"${path}"` });

/** The quads as sorted N-Triples lines: two graphs without blank nodes are the same when these are. */
function nTriples(quads: Quad[]): string[] {
  const writer = new Writer({ format: 'application/n-triples' });
  return quads.map((quad) => writer.quadToString(quad.subject, quad.predicate, quad.object)).sort();
}

describe("a member's times as a listing writes them", () => {
  const times = [0, 1, 5, 10, 50, 99, 100, 120, 999, 1000, 59_999, 1_795_639_230_000, 1_795_639_230_001, 1_795_639_230_010, 1_795_639_230_100, 1_795_639_230_120, 1_795_639_230_999];
  const beyond = [-1, -1500, 1.5, 1_795_639_230_000.25, 253_402_300_799_999, 253_402_300_800_000, 999_999_999_999_999, 1e15, 8.64e15, -8.64e15];

  it('are what a Date and a number write (members of one second share its text)', () => {
    for (const ms of [...times, ...times.slice().reverse(), ...beyond]) {
      expect(isoDateTime(ms)).toBe(new Date(ms).toISOString());
      expect(decimalSeconds(ms)).toBe(String(ms / 1000));
    }
  });

  it('are what a Date and a number write over years of milliseconds', () => {
    let ms = 1_700_000_000_000;
    for (let step = 1; step < 20_000; step++) {
      ms += (step * 7919) % 1_000_003;
      expect(isoDateTime(ms)).toBe(new Date(ms).toISOString());
      expect(decimalSeconds(ms)).toBe(String(ms / 1000));
    }
  });
});

describe('container listings written as Turtle', () => {
  const listing: Listing = {
    container: meta('/box/', 1_795_639_230_963, 0),
    members: [
      meta('/box/a.json', 1_795_639_230_955),
      meta('/box/b c.ttl', 1_795_639_230_000),
      meta('/box/sub/', 1_795_639_230_961, 0),
      meta('/box/urn:x', 1_795_639_230_100),
      meta('/box/é%.txt', 1_795_639_230_972),
    ],
  };

  it('states exactly what the quads of the listing state, resolved against the container', () => {
    const parsed = new Parser({ baseIRI: BASE }).parse([...listingToTurtle(listing, url)].join(''));
    expect(nTriples(parsed)).toEqual(nTriples(listingToQuads(listing, url)));
  });

  it('keeps a member whose name has a colon from reading as an IRI scheme', () => {
    const turtle = [...listingToTurtle(listing, url)].join('');
    expect(turtle).toContain('<./urn:x>');
    expect(new Parser({ baseIRI: BASE }).parse(turtle).some((quad) => quad.subject.value === `${BASE}urn:x`)).toBe(true);
  });

  it('lists an empty container', () => {
    const empty = { container: listing.container, members: [] };
    expect(nTriples(new Parser({ baseIRI: BASE }).parse([...listingToTurtle(empty, url)].join('')))).toEqual(nTriples(listingToQuads(empty, url)));
  });
});

describe('container listings written as JSON-LD', () => {
  const members = Array.from({ length: 300 }, (_, index) => meta(`/many/m${index}${index % 2 ? '/' : '.json'}`, 1_795_639_230_000 + index));
  const listing: Listing = { container: meta('/many/', 1_795_639_230_963, 0), members };

  it('states exactly what the quads of the listing state, over more than one piece', async () => {
    const pieces = [...listingToJsonLd(listing, url)];
    expect(pieces.length).toBeGreaterThan(3);
    expect(nTriples(await parseRdf(pieces.join(''), 'application/ld+json', 'https://pod.example/alice/many/'))).toEqual(nTriples(listingToQuads(listing, url)));
  });

  it('and as Turtle, over more than one piece', () => {
    const pieces = [...listingToTurtle(listing, url)];
    expect(pieces.length).toBeGreaterThan(5);
    expect(nTriples(new Parser({ baseIRI: 'https://pod.example/alice/many/' }).parse(pieces.join('')))).toEqual(nTriples(listingToQuads(listing, url)));
  });
});

describe('a body written in pieces', () => {
  it('is the UTF-8 of the pieces joined, characters beyond ASCII included, whatever room it was given first', () => {
    const pieces = ['plain ', 'é and € and 😀 ', 'x'.repeat(300), '', 'ü'];
    for (const sizeHint of [0, 10, 5000]) {
      expect(encodePieces(pieces, sizeHint)).toEqual(new TextEncoder().encode(pieces.join('')));
      expect(encodePieces(['😀'.repeat(200), 'tail'], sizeHint)).toEqual(new TextEncoder().encode(`${'😀'.repeat(200)}tail`));
      expect(encodePieces([], sizeHint)).toEqual(new Uint8Array(0));
    }
  });
});

describe('listing bodies', () => {
  it('are made once for concurrent requests and reused while the members are the same array', async () => {
    const cache = new ListingBodies(1 << 20);
    const listing: Listing = { container: meta('/once/', 1), members: [meta('/once/a', 1)] };
    let made = 0;
    const make = async () => {
      made++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 'body';
    };
    const bodies = await Promise.all([cache.body(listing, 'k', make), cache.body(listing, 'k', make), cache.body(listing, 'k', make)]);
    expect(made).toBe(1);
    expect(new TextDecoder().decode(bodies[0])).toBe('body');
    await cache.body(listing, 'k', make);
    expect(made).toBe(1);
    await cache.body({ ...listing, members: [...listing.members] }, 'k', make);
    expect(made).toBe(2);
  });

  it('keep one body per key: a new version of the container replaces the old one', async () => {
    const cache = new ListingBodies(1 << 20);
    const members = [meta('/v/a', 1)];
    let made = 0;
    const make = () => `body ${++made}`;
    const version = (etag: string) => ({ container: { ...meta('/v/', 1), etag }, members });
    await cache.body(version('one'), 'k', make);
    await cache.body(version('two'), 'k', make);
    expect(new TextDecoder().decode(await cache.body(version('two'), 'k', make))).toBe('body 2');
    // The first version's body is gone, not kept beside the second.
    expect(new TextDecoder().decode(await cache.body(version('one'), 'k', make))).toBe('body 3');
  });

  it('are made again after a failure', async () => {
    const cache = new ListingBodies(1 << 20);
    const listing: Listing = { container: meta('/fails/', 1), members: [] };
    await expect(cache.body(listing, 'f', () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(new TextDecoder().decode(await cache.body(listing, 'f', () => 'again'))).toBe('again');
  });
});
