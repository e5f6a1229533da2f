import { describe, expect, it } from 'vitest';
import { jsonLdBodies, ListingBodies, listingJsonLdBytes, listingTurtleBytes, turtleBodies, type BodyMaker, type Listing } from '../../src/ldp/listing.ts';
import { laidOutBody, splicedBody, type LaidOutBody, type ListingLayout } from '../../src/ldp/listing-layout.ts';
import { encodePieces } from '../../src/ldp/listing.ts';
import type { ResourceMeta } from '../../src/storage/types.ts';

const encoded = (path: string) => `https://pod.example/alice${path.split('/').map((segment) => encodeURIComponent(segment).replace(/%3A/g, ':')).join('/')}`;
// IRIs as some origins give them, beyond ASCII: the bytes of a member's text are then more than its characters.
const raw = (path: string) => `https://pod.example/alice${path}`;
const meta = (path: string, modified: number, size = 12): ResourceMeta => ({ path, isContainer: path.endsWith('/'), modified, size, etag: `"${path}-${modified}"` });
const container = (modified: number) => meta('/box/', modified, 0);

const members = Array.from({ length: 400 }, (_, index) => meta(`/box/m${String(index).padStart(4, '0')}${index % 7 === 3 ? '/' : '.json'}`, 1_795_639_230_000 + index * 37));
const sorted = (list: ResourceMeta[]) => list.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

/** Versions of the container one after the other, as writes make them. */
const changes: [string, (list: ResourceMeta[]) => ResourceMeta[]][] = [
  ['a member replaced', (list) => list.map((member, index) => (index === 200 ? meta(member.path, member.modified + 5, 99) : member))],
  ['a member added in the middle', (list) => sorted([...list, meta('/box/m0200a.json', 1_795_639_240_000)])],
  ['a member added first', (list) => sorted([...list, meta('/box/a.json', 1_795_639_240_000)])],
  ['a member added last', (list) => sorted([...list, meta('/box/z/', 1_795_639_240_000, 0)])],
  ['the first member removed', (list) => list.slice(1)],
  ['the last member removed', (list) => list.slice(0, -1)],
  ['a member removed in the middle', (list) => list.filter((_, index) => index !== 150)],
  ['a few changed at once', (list) => sorted([...list.filter((_, index) => index % 97 !== 5), meta('/box/m0001b', 1), meta('/box/né é.txt', 2), meta('/box/q"uo\\te\u0001', 3)])],
  ['the same members as new objects', (list) => list.map((member) => ({ ...member }))],
  ['nothing but the container', (list) => list],
  ['all members but one removed', (list) => list.slice(0, 1)],
  ['none left', () => []],
  ['one again', () => [meta('/box/only', 3)]],
];

describe.each([
  ['Turtle', turtleBodies, listingTurtleBytes],
  ['JSON-LD', jsonLdBodies, listingJsonLdBytes],
] as const)('a %s listing body made from the previous one', (_, bodiesOf, fresh) => {
  for (const [urls, url] of [['IRIs in ASCII', encoded], ['IRIs beyond ASCII', raw]] as const) {
    it(`is byte for byte the body made whole, for each change in turn (${urls})`, async () => {
      const cache = new ListingBodies(1 << 24);
      let list = members;
      let modified = 1_795_639_250_000;
      await cache.body({ container: container(modified), members: list }, 'k', bodiesOf(url, list.length));
      for (const [, change] of changes) {
        list = change(list);
        const listing: Listing = { container: container(++modified), members: list };
        const body = await cache.body(listing, 'k', bodiesOf(url, list.length));
        expect(body).toEqual(fresh(listing, url));
        if (bodiesOf === jsonLdBodies) expect(JSON.parse(new TextDecoder().decode(body))['@graph'][0].contains).toEqual(list.map((member) => url(member.path)));
      }
    });
  }

  it('writes only the texts of the members that changed', async () => {
    const cache = new ListingBodies(1 << 24);
    let written = 0;
    const counting = (maker: BodyMaker): BodyMaker => {
      if (typeof maker === 'function') throw new Error('a layout expected');
      return {
        sizeHint: maker.sizeHint,
        layout: (listing) => {
          const layout = maker.layout(listing);
          return { ...layout, second: (member, index, parts) => (written++, layout.second(member, index, parts)) };
        },
      };
    };
    await cache.body({ container: container(1), members }, 'k', counting(bodiesOf(encoded, members.length)));
    expect(written).toBe(members.length);
    const changed = sorted([...members.slice(1), meta('/box/m0200a.json', 2)]);
    const listing = { container: container(2), members: changed };
    written = 0;
    expect(await cache.body(listing, 'k', counting(bodiesOf(encoded, changed.length)))).toEqual(fresh(listing, encoded));
    expect(written).toBe(1);
  });
});

describe('a laid-out body', () => {
  const layout: ListingLayout = {
    head: 'H[',
    first: (member, _, parts) => void parts.push(member.path),
    firstSeparator: ', ',
    middle: ']M',
    second: (member, _, parts) => void parts.push('{', String(member.size), '}'),
    secondSeparator: '',
    tail: 'T',
  };
  const build = (list: readonly ResourceMeta[]) => laidOutBody(list, layout, (pieces) => encodePieces(pieces)) as LaidOutBody;

  it('knows where each member text starts, in bytes, and the spliced one the same as one made whole', () => {
    const list = [meta('/a', 1, 1), meta('/b', 1, 22), meta('/c', 1, 333)];
    const body = build(list);
    const text = new TextDecoder().decode(body.bytes);
    expect(text).toBe('H[/a, /b, /c]M{1}{22}{333}T');
    expect([...body.first]).toEqual([2, 6, 10, 12]);
    expect([...body.second]).toEqual([14, 17, 21, 26]);
    const next = [list[0]!, meta('/b2', 1, 4), list[2]!];
    const spliced = splicedBody(body, next, layout)!;
    const whole = build(next);
    expect(spliced.bytes).toEqual(whole.bytes);
    expect([...spliced.first]).toEqual([...whole.first]);
    expect([...spliced.second]).toEqual([...whole.second]);
  });

  it('is not spliced when most members changed, nor kept with offsets when its text is beyond ASCII', () => {
    const list = [meta('/a', 1), meta('/b', 1), meta('/c', 1)];
    expect(splicedBody(build(list), [meta('/a', 2), meta('/b', 2), list[2]!], layout)).toBeUndefined();
    expect(laidOutBody([meta('/é', 1)], layout, (pieces) => encodePieces(pieces))).toBeInstanceOf(Uint8Array);
  });
});
