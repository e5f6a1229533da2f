import { describe, expect, it } from 'vitest';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { matchesFilter, parseFilter, type Filter } from '../../src/nostr/filter.ts';
import { EventStore, newestFirst } from '../../src/nostr/store.ts';
import { Author } from './support.ts';

const parse = (value: unknown): Filter => {
  const filter = parseFilter(value, { maxValues: 1000, maxLimit: 1000 });
  if (typeof filter === 'string') throw new Error(filter);
  return filter;
};

describe('EventStore', () => {
  it('keeps at most maxEvents, evicting the earliest received first whatever their created_at', () => {
    const author = new Author();
    const store = new EventStore(2);
    const [first, second, third] = [author.sign({ created_at: 300 }), author.sign({ created_at: 100 }), author.sign({ created_at: 200 })];
    expect(store.add(first!)).toEqual([]);
    expect(store.add(second!)).toEqual([]);
    expect(store.add(third!)).toEqual([first]);
    expect(store.size).toBe(2);
    expect(store.get(first!.id)).toBeUndefined();
    expect(store.query([parse({ authors: [author.pubkey] })], 0)).toEqual([third, second]);
  });

  it('forgets an event in every index when it is removed', () => {
    const author = new Author();
    const store = new EventStore(10);
    const event = author.sign({ kind: 30000, tags: [['d', 'x'], ['t', 'y']] });
    store.add(event);
    expect(store.atAddress(`30000:${author.pubkey}:x`)).toBe(event);
    expect(store.remove(event.id)).toBe(event);
    expect(store.atAddress(`30000:${author.pubkey}:x`)).toBeUndefined();
    for (const raw of [{ authors: [author.pubkey] }, { kinds: [30000] }, { '#t': ['y'] }, { ids: [event.id] }, {}]) expect(store.query([parse(raw)], 0)).toEqual([]);
  });

  it('answers every filter as a full scan would, newest first, each filter limited on its own', () => {
    const authors = [new Author(), new Author(), new Author()];
    const store = new EventStore(1000);
    const all: NostrEvent[] = [];
    for (let i = 0; i < 120; i++) {
      const event = authors[i % 3]!.sign({ kind: [1, 7, 30023][i % 5 % 3], created_at: 1000 + ((i * 37) % 50), tags: [['t', `tag${i % 4}`], ['t', `tag${i % 6}`], ['d', `d${i}`]] });
      store.add(event);
      all.push(event);
    }
    const filters: unknown[][] = [
      [{}],
      [{ limit: 5 }],
      [{ authors: [authors[0]!.pubkey], limit: 3 }],
      [{ kinds: [7], since: 1010, until: 1030 }],
      [{ '#t': ['tag1', 'tag5'] }],
      [{ '#t': ['tag2'], kinds: [1], authors: [authors[1]!.pubkey, authors[2]!.pubkey] }],
      [{ ids: [all[3]!.id, all[77]!.id, 'f'.repeat(64)] }],
      [{ kinds: [7], limit: 2 }, { authors: [authors[2]!.pubkey], limit: 2 }, { '#t': ['tag3'], limit: 0 }],
    ];
    for (const raw of filters) {
      const parsed = raw.map(parse);
      const expected = new Map<string, NostrEvent>();
      for (const filter of parsed) {
        const matches = all.filter((event) => matchesFilter(event, filter)).sort(newestFirst);
        for (const event of matches.slice(0, filter.limit ?? matches.length)) expected.set(event.id, event);
      }
      expect(store.query(parsed, 0), JSON.stringify(raw)).toEqual([...expected.values()].sort(newestFirst));
    }
  });

  it('leaves expired events out of answers', () => {
    const author = new Author();
    const store = new EventStore(10);
    const expiring = author.sign({ tags: [['expiration', '5000']] });
    store.add(expiring);
    expect(store.query([parse({})], 4999)).toEqual([expiring]);
    expect(store.query([parse({})], 5000)).toEqual([]);
  });
});
