import { describe, expect, it } from 'vitest';
import { ARCHIVE_CONTAINER, storageArchive } from '../../src/nostr/archive.ts';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { parseFilter, type Filter } from '../../src/nostr/filter.ts';
import { Relay } from '../../src/nostr/relay.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { Author } from './support.ts';

const NOW = 1_700_000_000;
const parse = (value: unknown): Filter => {
  const filter = parseFilter(value, { maxValues: 100, maxLimit: 100 });
  if (typeof filter === 'string') throw new Error(filter);
  return filter;
};

function relayWith(options: { maxEvents?: number; storage?: MemoryDriver } = {}) {
  const log: string[] = [];
  const relay = new Relay({
    maxEvents: options.maxEvents ?? 100,
    now: () => NOW * 1000,
    log: (line) => log.push(line),
    ...(options.storage && { archive: storageArchive(options.storage, (line) => log.push(line)) }),
  });
  const delivered: NostrEvent[] = [];
  relay.listen({ deliver: (event) => delivered.push(event) });
  const ids = (raw: unknown) => relay.query([parse(raw)]).map((event) => event.id);
  return { relay, delivered, ids, log };
}

describe('Relay.publish', () => {
  const alice = new Author();
  const bob = new Author();

  it('stores and delivers regular events, and answers a second copy with duplicate:', async () => {
    const { relay, delivered, ids } = relayWith();
    const note = alice.sign({ created_at: NOW });
    expect(await relay.publish(note)).toEqual({ accepted: true, message: '' });
    expect(await relay.publish(note)).toEqual({ accepted: true, message: 'duplicate: already have this event' });
    expect(delivered).toEqual([note]);
    expect(ids({ ids: [note.id] })).toEqual([note.id]);
  });

  it('keeps one replaceable event per author and kind: the newest, or the lowest id on a tie', async () => {
    const { relay, ids } = relayWith();
    const older = alice.sign({ kind: 0, created_at: NOW - 10, content: 'old' });
    const newer = alice.sign({ kind: 0, created_at: NOW, content: 'new' });
    expect((await relay.publish(newer)).accepted).toBe(true);
    expect(await relay.publish(older)).toEqual({ accepted: false, message: 'duplicate: a newer version of this replaceable event is stored' });
    expect(ids({ kinds: [0], authors: [alice.pubkey] })).toEqual([newer.id]);
    const tie = [alice.sign({ kind: 10002, created_at: NOW, content: 'a' }), alice.sign({ kind: 10002, created_at: NOW, content: 'b' })];
    const [low, high] = tie.sort((a, b) => (a.id < b.id ? -1 : 1));
    await relay.publish(high!);
    expect((await relay.publish(low!)).accepted).toBe(true);
    expect((await relay.publish(high!)).accepted).toBe(false);
    expect(ids({ kinds: [10002] })).toEqual([low!.id]);
    // Another author's kind 0 is another address.
    await relay.publish(bob.sign({ kind: 0, created_at: NOW - 100 }));
    expect(ids({ kinds: [0] })).toHaveLength(2);
  });

  it('keeps one addressable event per author, kind and d tag', async () => {
    const { relay, ids } = relayWith();
    await relay.publish(alice.sign({ kind: 30023, created_at: NOW - 5, tags: [['d', 'post']], content: 'v1' }));
    const second = alice.sign({ kind: 30023, created_at: NOW, tags: [['d', 'post']], content: 'v2' });
    const other = alice.sign({ kind: 30023, created_at: NOW - 5, tags: [['d', 'other']] });
    await relay.publish(second);
    await relay.publish(other);
    expect(ids({ kinds: [30023] }).sort()).toEqual([second.id, other.id].sort());
  });

  it('delivers ephemeral events without storing them', async () => {
    const { relay, delivered, ids } = relayWith();
    const ephemeral = alice.sign({ kind: 20001, created_at: NOW });
    expect((await relay.publish(ephemeral)).accepted).toBe(true);
    expect(delivered).toEqual([ephemeral]);
    expect(ids({})).toEqual([]);
  });

  it('refuses expired events and NIP-42 auth events', async () => {
    const { relay, delivered } = relayWith();
    expect(await relay.publish(alice.sign({ tags: [['expiration', String(NOW - 1)]] }))).toMatchObject({ accepted: false, message: expect.stringMatching(/^invalid: .*expired/) });
    expect(await relay.publish(alice.sign({ kind: 22242 }))).toMatchObject({ accepted: false, message: expect.stringMatching(/^invalid: /) });
    expect(delivered).toEqual([]);
  });

  it('deletes (NIP-09) only the author\'s own events, by id and by address up to the request time, and refuses them again', async () => {
    const { relay, ids } = relayWith();
    const note = alice.sign({ created_at: NOW - 10 });
    const bobsNote = bob.sign({ created_at: NOW - 10 });
    const article = alice.sign({ kind: 30023, created_at: NOW - 10, tags: [['d', 'a1']] });
    for (const event of [note, bobsNote, article]) await relay.publish(event);
    const address = `30023:${alice.pubkey}:a1`;
    const request = alice.sign({ kind: 5, created_at: NOW - 5, tags: [['e', note.id], ['e', bobsNote.id], ['a', address]] });
    expect((await relay.publish(request)).accepted).toBe(true);
    expect(ids({ ids: [note.id, bobsNote.id, article.id] })).toEqual([bobsNote.id]);
    expect(ids({ kinds: [5] })).toEqual([request.id]);
    expect(await relay.publish(note)).toEqual({ accepted: false, message: 'blocked: its author has asked for this event to be deleted (NIP-09)' });
    expect((await relay.publish(alice.sign({ kind: 30023, created_at: NOW - 6, tags: [['d', 'a1']] }))).accepted).toBe(false);
    const later = alice.sign({ kind: 30023, created_at: NOW, tags: [['d', 'a1']] });
    expect((await relay.publish(later)).accepted).toBe(true);
    // A deletion request for a deletion request has no effect.
    await relay.publish(alice.sign({ kind: 5, created_at: NOW, tags: [['e', request.id]] }));
    expect(ids({ ids: [request.id] })).toEqual([request.id]);
  });
});

describe('the storage archive (--nostr-persist)', () => {
  it('reads the events back in the order received, with replacements, deletions and evictions applied', async () => {
    const storage = new MemoryDriver();
    const alice = new Author();
    const first = relayWith({ maxEvents: 3, storage });
    await first.relay.init();
    const events = [1, 2, 3, 4].map((i) => alice.sign({ created_at: NOW - 100 + i, content: `note ${i}` }));
    for (const event of events) await first.relay.publish(event);
    const profile = alice.sign({ kind: 0, created_at: NOW - 50 });
    await first.relay.publish(profile);
    await first.relay.publish(alice.sign({ kind: 0, created_at: NOW - 40 }));
    await first.relay.publish(alice.sign({ kind: 5, created_at: NOW, tags: [['e', events[3]!.id]] }));
    const kept = first.relay.query([parse({})]).map((event) => event.id);
    expect(kept).toHaveLength(3);

    const second = relayWith({ maxEvents: 3, storage });
    await second.relay.init();
    expect(second.relay.query([parse({})]).map((event) => event.id)).toEqual(kept);
    const members = [];
    for await (const member of storage.list(ARCHIVE_CONTAINER)) members.push(member.path);
    expect(members).toHaveLength(3);

    // A lower limit at the next start drops the earliest received, in storage too.
    const third = relayWith({ maxEvents: 1, storage });
    await third.relay.init();
    expect(third.relay.store.size).toBe(1);
    const left = [];
    for await (const member of storage.list(ARCHIVE_CONTAINER)) left.push(member.path);
    expect(left).toHaveLength(1);
  });

  it('starts empty when nothing was archived, and skips records that hold no event', async () => {
    const storage = new MemoryDriver();
    const empty = relayWith({ storage });
    await empty.relay.init();
    expect(empty.relay.store.size).toBe(0);
    await storage.put(`${ARCHIVE_CONTAINER}broken.json`, '{"received":1,"event":{"id":"x"}}', { contentType: 'application/json' });
    const next = relayWith({ storage });
    await next.relay.init();
    expect(next.relay.store.size).toBe(0);
    expect(next.log.join('\n')).toMatch(/ignoring .*broken\.json/);
  });
});
