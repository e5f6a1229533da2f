import { matchFilter } from 'nostr-tools/filter';
import { describe, expect, it } from 'vitest';
import { isExpired, matchesFilter, parseFilter, type Filter } from '../../src/nostr/filter.ts';
import { Author } from './support.ts';

const LIMITS = { maxValues: 3, maxLimit: 100 };
const parse = (value: unknown) => {
  const filter = parseFilter(value, LIMITS);
  if (typeof filter === 'string') throw new Error(filter);
  return filter;
};

describe('parseFilter', () => {
  it('refuses what is no NIP-01 filter, saying why', () => {
    expect(parseFilter([], LIMITS)).toMatch(/JSON object/);
    expect(parseFilter({ ids: 'abc' }, LIMITS)).toMatch(/ids must be a non-empty array/);
    expect(parseFilter({ ids: [] }, LIMITS)).toMatch(/non-empty/);
    expect(parseFilter({ authors: ['ABC'] }, LIMITS)).toMatch(/64-character lowercase hex/);
    expect(parseFilter({ '#p': ['not-hex'] }, LIMITS)).toMatch(/#p must hold 64-character/);
    expect(parseFilter({ kinds: [1, -1] }, LIMITS)).toMatch(/kinds must hold whole numbers/);
    expect(parseFilter({ kinds: [1, 2, 3, 4] }, LIMITS)).toMatch(/too many values \(at most 3\)/);
    expect(parseFilter({ since: 1.5 }, LIMITS)).toMatch(/since must be a whole number/);
    expect(parseFilter({ search: 'x' }, LIMITS)).toMatch(/unknown filter field "search"/);
    expect(parseFilter({ '#ab': ['x'] }, LIMITS)).toMatch(/unknown filter field/);
  });

  it('clamps limit to the relay maximum, which is also the limit of a filter without one, and takes any string for other tag letters', () => {
    expect(parse({ limit: 5000 }).limit).toBe(100);
    expect(parse({}).limit).toBe(100);
    expect(parse({ limit: 7 }).limit).toBe(7);
    expect([...parse({ '#t': ['nostr', 'x'] }).tags!.get('t')!]).toEqual(['nostr', 'x']);
  });
});

describe('matchesFilter', () => {
  const alice = new Author();
  const bob = new Author();
  const events = [
    alice.sign({ kind: 1, created_at: 100, tags: [['t', 'a'], ['p', bob.pubkey]] }),
    alice.sign({ kind: 7, created_at: 200, tags: [['e', 'f'.repeat(64)]] }),
    bob.sign({ kind: 1, created_at: 300, tags: [['t', 'b'], ['t', 'a']] }),
    bob.sign({ kind: 30023, created_at: 400, tags: [['d', 'post']] }),
  ];
  const filters: unknown[] = [
    {},
    { ids: [events[0]!.id, events[3]!.id] },
    { authors: [bob.pubkey] },
    { kinds: [1, 30023] },
    { '#t': ['a'] },
    { '#t': ['b'], authors: [alice.pubkey] },
    { '#p': [bob.pubkey] },
    { '#e': ['f'.repeat(64)] },
    { '#d': ['post'] },
    { since: 200 },
    { until: 200 },
    { since: 200, until: 300, kinds: [1] },
    { authors: [alice.pubkey], kinds: [7], since: 150, until: 250 },
  ];

  it('agrees with nostr-tools on every field and combination', () => {
    for (const raw of filters) {
      const filter: Filter = parse(raw);
      for (const event of events) expect(matchesFilter(event, filter), JSON.stringify({ raw, event: event.id })).toBe(matchFilter(raw as never, event));
    }
  });

  it('treats an event as expired from its NIP-40 expiration time on', () => {
    const event = alice.sign({ tags: [['expiration', '1000']] });
    expect(isExpired(event, 999)).toBe(false);
    expect(isExpired(event, 1000)).toBe(true);
    expect(isExpired(alice.sign(), 1e12)).toBe(false);
  });
});
