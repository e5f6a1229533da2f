/**
 * The relay of a real `svc start --nostr` process, with nostr-tools as the client (and a raw WebSocket for
 * what a well-behaved client never sends).
 */
import { readFile, rm } from 'node:fs/promises';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { finalizeEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { Inbox } from '../notifications/support.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { Author, CLIENT_TIMEOUT_MS, plain, query } from './support.ts';

useWebSocketImplementation(WebSocket);

const now = () => Math.floor(Date.now() / 1000);
const relays: Relay[] = [];
const inboxes: Inbox[] = [];

async function connect(url: string): Promise<Relay> {
  const relay = await Relay.connect(url);
  relay.publishTimeout = CLIENT_TIMEOUT_MS;
  relays.push(relay);
  return relay;
}

/** NIP-42 through nostr-tools, once the relay's challenge has arrived (it follows the handshake). */
const authenticate = (relay: Relay, author: Author) =>
  vi.waitFor(() => relay.auth(async (template) => finalizeEvent(template, author.secret)), { timeout: CLIENT_TIMEOUT_MS, interval: 20 });
const idsOf = (events: NostrEvent[]) => events.map((event) => event.id);

let svc: RunningSvc;
let url: string;

beforeAll(async () => {
  svc = await startSvc(['--nostr', '--quiet']);
  // The ready line gives the relay's WebSocket URL.
  expect(svc.output()).toContain(`; Nostr relay at ${svc.base.replace('http', 'ws')}/relay`);
  url = svc.base.replace(/^http/, 'ws') + '/relay';
});

afterAll(async () => {
  for (const relay of relays) relay.close();
  for (const inbox of inboxes) inbox.close();
  await svc.stop();
});

describe('svc start --nostr with nostr-tools as the client', () => {
  const alice = new Author();
  const bob = new Author();

  it('publishes and queries by every filter field', async () => {
    const client = await connect(url);
    const t = now();
    const root = alice.sign({ created_at: t - 300, content: 'root', tags: [['t', 'svc-filters']] });
    const reply = bob.sign({ created_at: t - 200, content: 'reply', tags: [['e', root.id], ['p', alice.pubkey], ['t', 'svc-filters']] });
    const reaction = bob.sign({ kind: 7, created_at: t - 100, content: '+', tags: [['e', root.id], ['t', 'svc-filters']] });
    for (const event of [root, reply, reaction]) expect(await client.publish(event)).toBe('');
    const scope = { '#t': ['svc-filters'] };

    expect(idsOf(await query(client, [{ ids: [root.id, reaction.id] }]))).toEqual([reaction.id, root.id]);
    expect(idsOf(await query(client, [{ ...scope, authors: [bob.pubkey] }]))).toEqual([reaction.id, reply.id]);
    expect(idsOf(await query(client, [{ ...scope, kinds: [7] }]))).toEqual([reaction.id]);
    expect(idsOf(await query(client, [{ '#e': [root.id] }]))).toEqual([reaction.id, reply.id]);
    expect(idsOf(await query(client, [{ '#p': [alice.pubkey] }]))).toEqual([reply.id]);
    expect(idsOf(await query(client, [{ ...scope, since: t - 200 }]))).toEqual([reaction.id, reply.id]);
    expect(idsOf(await query(client, [{ ...scope, until: t - 200 }]))).toEqual([reply.id, root.id]);
    expect(idsOf(await query(client, [{ ...scope, since: t - 250, until: t - 150 }]))).toEqual([reply.id]);
    expect(idsOf(await query(client, [{ ...scope, limit: 2 }]))).toEqual([reaction.id, reply.id]);
    expect(idsOf(await query(client, [{ ...scope, kinds: [7] }, { ids: [root.id] }]))).toEqual([reaction.id, root.id]);
    expect(await query(client, [{ ...scope, authors: [alice.pubkey], kinds: [7] }])).toEqual([]);
    // What comes back is the event as signed: nostr-tools has verified each signature on arrival.
    expect((await query(client, [{ ids: [reply.id] }]))[0]).toEqual(reply);
  });

  it('delivers new events live to a second client after EOSE', async () => {
    const reader = await connect(url);
    const writer = await connect(url);
    const received: NostrEvent[] = [];
    let arrived: () => void = () => {};
    const live = new Promise<void>((resolve) => (arrived = resolve));
    await new Promise<void>((resolve) => {
      reader.subscribe([{ authors: [alice.pubkey], '#t': ['svc-live'] }], {
        eoseTimeout: CLIENT_TIMEOUT_MS,
        oneose: resolve,
        onevent: (event) => {
          received.push(plain(event));
          arrived();
        },
      });
    });
    const event = alice.sign({ tags: [['t', 'svc-live']] });
    await writer.publish(bob.sign({ tags: [['t', 'svc-live']] }));
    await writer.publish(event);
    await live;
    expect(received).toEqual([event]);
  });

  it('keeps the latest replaceable and addressable events and never stores ephemeral ones', async () => {
    const client = await connect(url);
    const t = now();
    const author = new Author();
    await client.publish(author.sign({ kind: 0, created_at: t - 10, content: '{"name":"old"}' }));
    const profile = author.sign({ kind: 0, created_at: t, content: '{"name":"new"}' });
    await client.publish(profile);
    await expect(client.publish(author.sign({ kind: 0, created_at: t - 5 }))).rejects.toThrow(/^duplicate: /);
    expect(idsOf(await query(client, [{ kinds: [0], authors: [author.pubkey] }]))).toEqual([profile.id]);

    const v1 = author.sign({ kind: 30023, created_at: t - 10, tags: [['d', 'essay']], content: 'draft' });
    const v2 = author.sign({ kind: 30023, created_at: t, tags: [['d', 'essay']], content: 'final' });
    const other = author.sign({ kind: 30023, created_at: t - 10, tags: [['d', 'poem']] });
    for (const event of [v1, v2, other]) await client.publish(event);
    expect(idsOf(await query(client, [{ kinds: [30023], authors: [author.pubkey] }]))).toEqual([v2.id, other.id]);
    expect(idsOf(await query(client, [{ kinds: [30023], '#d': ['essay'] }]))).toEqual([v2.id]);

    const listener = await connect(url);
    const heard = new Promise<NostrEvent>((resolve) => {
      listener.subscribe([{ kinds: [20001], authors: [author.pubkey] }], { eoseTimeout: CLIENT_TIMEOUT_MS, onevent: (event) => resolve(event as NostrEvent) });
    });
    await query(listener, [{ limit: 0 }]);
    const ephemeral = author.sign({ kind: 20001, content: 'typing' });
    expect(await client.publish(ephemeral)).toBe('');
    expect((await heard).id).toBe(ephemeral.id);
    expect(await query(client, [{ kinds: [20001], authors: [author.pubkey] }])).toEqual([]);
  });

  it('deletes events at their author\'s request (NIP-09) and refuses them afterwards', async () => {
    const client = await connect(url);
    const author = new Author();
    const note = author.sign({ created_at: now() - 5 });
    const othersNote = bob.sign({ created_at: now() - 5 });
    await client.publish(note);
    await client.publish(othersNote);
    const request = author.sign({ kind: 5, tags: [['e', note.id], ['e', othersNote.id], ['k', '1']] });
    expect(await client.publish(request)).toBe('');
    expect(idsOf(await query(client, [{ ids: [note.id, othersNote.id, request.id] }]))).toEqual([request.id, othersNote.id]);
    await expect(client.publish(note)).rejects.toThrow(/^blocked: /);
  });

  it('refuses wrong ids and bad signatures with invalid:, and answers a repeat with duplicate:', async () => {
    const client = await connect(url);
    const event = alice.sign({ content: 'genuine' });
    await expect(client.publish({ ...event, content: 'forged' })).rejects.toThrow('invalid: event id does not match the hash of its content');
    await expect(client.publish({ ...event, sig: bob.sign({ content: 'genuine' }).sig })).rejects.toThrow('invalid: signature does not verify');
    await expect(client.publish({ ...event, created_at: now() + 3600 })).rejects.toThrow(/^invalid: /);
    expect(await query(client, [{ ids: [event.id] }])).toEqual([]);
    expect(await client.publish(event)).toBe('');
    expect(await client.publish(event)).toBe('duplicate: already have this event');
  });

  it('answers malformed input with NOTICE, closes only a socket that sends an oversized frame, and keeps serving others', async () => {
    const raw = new Inbox(url);
    inboxes.push(raw);
    await raw.opened;
    expect(JSON.parse(await raw.next())[0]).toBe('AUTH');
    expect(JSON.parse(await raw.ask('not json'))).toEqual(['NOTICE', 'invalid: the message is not JSON']);
    expect(JSON.parse(await raw.ask('{"kind":1}'))[0]).toBe('NOTICE');
    expect(JSON.parse(await raw.ask('["EVENT",{"id":"abc"}]'))).toEqual(['OK', 'abc', false, 'invalid: id must be 64 lowercase hex characters']);
    expect(JSON.parse(await raw.ask('["REQ","s",{"kinds":"all"}]'))).toEqual(['CLOSED', 's', 'invalid: kinds must be a non-empty array']);
    expect(JSON.parse(await raw.ask('["REQ","s",{}]'))[0]).toMatch(/^(EVENT|EOSE)$/);

    const client = await connect(url);
    const flooder = new Inbox(url);
    inboxes.push(flooder);
    await flooder.opened;
    flooder.socket.send(JSON.stringify(['EVENT', { content: 'x'.repeat(100_000) }]));
    expect((await flooder.closed).code).toBe(1009);
    const event = alice.sign({ content: 'still here' });
    expect(await client.publish(event)).toBe('');
    expect(await query(client, [{ ids: [event.id] }])).toHaveLength(1);
  });

  it('authenticates with NIP-42 and serves direct messages only to their parties', async () => {
    const sender = new Author();
    const recipient = new Author();
    const writer = await connect(url);
    const dm = sender.sign({ kind: 4, tags: [['p', recipient.pubkey]], content: 'ciphertext?iv=abc' });
    expect(await writer.publish(dm)).toBe('');

    const reader = await connect(url);
    await expect(query(reader, [{ kinds: [4], '#p': [recipient.pubkey] }])).rejects.toThrow(/auth-required: /);
    expect(await query(reader, [{ authors: [sender.pubkey] }])).toEqual([]);
    expect(await authenticate(reader, recipient)).toBe('');
    expect(await query(reader, [{ kinds: [4], '#p': [recipient.pubkey] }])).toEqual([dm]);

    const stranger = await connect(url);
    await authenticate(stranger, new Author());
    expect(await query(stranger, [{ kinds: [4] }])).toEqual([]);
  });

  it('serves its NIP-11 document on the relay URL, with CORS, and points plain browsers to WebSockets', async () => {
    const response = await fetch(`${svc.base}/relay`, { headers: { accept: 'application/nostr+json', origin: 'https://client.example' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/nostr+json');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://client.example');
    expect(response.headers.get('access-control-allow-headers')).toBeTruthy();
    expect(response.headers.get('access-control-allow-methods')).toContain('GET');
    const document = (await response.json()) as { supported_nips: number[]; software?: string; version: string; limitation: Record<string, unknown>; retention: unknown };
    expect(document.supported_nips).toEqual([1, 9, 11, 40, 42]);
    const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { version: string; homepage?: string };
    expect(document.version).toBe(pkg.version);
    // NIP-11: `software` MUST be the project's homepage URL when present; package.json names it, or there is none.
    expect(document.software).toBe(pkg.homepage);
    expect(document.limitation).toMatchObject({ max_message_length: 65536, max_subscriptions: 20, max_filters: 10, max_limit: 500, max_subid_length: 64, auth_required: false });
    expect(document.retention).toEqual([{ count: 1000 }]);

    const preflight = await fetch(`${svc.base}/relay`, { method: 'OPTIONS', headers: { origin: 'https://client.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-methods')).toContain('GET');

    const plain = await fetch(`${svc.base}/relay`);
    expect(plain.status).toBe(426);
    expect(plain.headers.get('content-type')).toBe('application/problem+json');
  });
});

describe('svc start --nostr with --nostr-max-events, --nostr-path, --nostr-persist and the event rate limit', () => {
  const args = ['--nostr', '--quiet', '--nostr-max-events', '3', '--nostr-path', '/nostr', '--nostr-persist', '--rate-limit', '--rate-limit-nostr', '1'];
  let first: RunningSvc;
  let root: string;
  const wsUrl = (server: RunningSvc) => server.base.replace(/^http/, 'ws') + '/nostr';

  beforeAll(async () => {
    first = await startSvc(args);
    root = first.root;
  });

  afterAll(async () => {
    if (first.process.exitCode === null) await first.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('keeps the last --nostr-max-events received, limits events per connection, and keeps them across a restart', async () => {
    const author = new Author();
    const t = now();
    // Received in this order; the first two are evicted whatever their created_at.
    const events = [5, 1, 4, 2, 3].map((age) => author.sign({ created_at: t - age, content: `age ${age}` }));
    for (const event of events) expect(await (await connect(wsUrl(first))).publish(event)).toBe('');
    const reader = await connect(wsUrl(first));
    const kept = await query(reader, [{ authors: [author.pubkey] }]);
    expect(idsOf(kept).sort()).toEqual(idsOf(events.slice(2)).sort());
    expect(idsOf(kept)).toEqual(idsOf([events[4]!, events[3]!, events[2]!].sort((a, b) => b.created_at - a.created_at)));

    const hasty = await connect(wsUrl(first));
    const answers = await Promise.allSettled([1, 2, 3].map((i) => hasty.publish(author.sign({ kind: 20001, content: `burst ${i}` }))));
    expect(answers.some((answer) => answer.status === 'rejected' && /^rate-limited: /.test(String(answer.reason.message)))).toBe(true);

    const wrongPath = new Inbox(first.base.replace(/^http/, 'ws') + '/relay');
    await expect(wrongPath.opened).rejects.toThrow(/404/);

    first.process.kill('SIGTERM');
    await new Promise((resolve) => first.process.once('exit', resolve));
    const second = await startSvc([...args, '-r', root]);
    try {
      const again = await connect(wsUrl(second));
      expect(idsOf(await query(again, [{ authors: [author.pubkey] }]))).toEqual(idsOf(kept));
    } finally {
      await second.stop();
    }
  });
});
