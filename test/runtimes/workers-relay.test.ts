/**
 * The Nostr relay in the shared-state Durable Object, as workerd runs it (the bundle of `wrangler deploy
 * --dry-run` in Miniflare, two isolates and the object): workerd evicts an object after 10 s without work,
 * also while hibernating WebSockets stay open. Its events come back from its SQLite storage, and a
 * subscription made before the eviction still hears an event published after it; a socket subscribed to
 * nothing is closed by the object's alarm though it hibernated. The portable relay cases
 * (test/portable/relay-suite.ts) cover the NIPs on Workers.
 */
import { Miniflare } from 'miniflare';
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { Author, query } from '../nostr/support.ts';
import { buildWorkerBundle, isolatesSharingTheObject, runtimeOutput, type WorkerBundle } from '../support/worker-bundle.ts';

useWebSocketImplementation(WebSocket);

/** workerd evicts an object after 10 s without work; this leaves it time to. */
const PAST_EVICTION_MS = 16_000;
const READ_BACK = /nostr: \d+ stored events read back/g;

let bundle: WorkerBundle;
let mf: Miniflare;
let url: string;
const output = runtimeOutput();

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  mf = new Miniflare({
    handleRuntimeStdio: output.handleRuntimeStdio,
    workers: isolatesSharingTheObject(bundle, { SVC_QUIET: 'true', SVC_RATE_LIMIT: 'false', SVC_NOSTR: 'true' }),
  });
  url = `${(await mf.ready).href.replace(/^http/, 'ws')}relay`;
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await bundle?.remove();
});

/** How often the relay has read its events back: once per start of the object. */
const starts = () => output.text().match(READ_BACK)?.length ?? 0;

describe('the relay in the Durable Object', () => {
  it('keeps its events in the object\'s storage: they are there after the object was evicted', async () => {
    const author = new Author();
    const writer = await Relay.connect(url);
    const event = author.sign({ content: 'kept through eviction' });
    expect(await writer.publish(event)).toBe('');
    writer.close();
    const before = starts();
    await new Promise((resolve) => setTimeout(resolve, PAST_EVICTION_MS));
    const reader = await Relay.connect(url);
    try {
      expect((await query(reader, [{ authors: [author.pubkey] }])).map((found) => found.id)).toEqual([event.id]);
      expect(starts()).toBe(before + 1);
    } finally {
      reader.close();
    }
  }, 60_000);

  it('carries a subscription through hibernation: the subscriber hears an event published after the object was evicted', async () => {
    const author = new Author();
    const subscriber = await Relay.connect(url);
    const heard = new Promise<NostrEvent>((resolve) => {
      subscriber.subscribe([{ authors: [author.pubkey] }], { onevent: (event) => resolve(event as NostrEvent) });
    });
    // The subscription is in place once a query after it on the same connection is answered.
    await query(subscriber, [{ ids: ['0'.repeat(64)] }]);
    const before = starts();
    await new Promise((resolve) => setTimeout(resolve, PAST_EVICTION_MS));
    const writer = await Relay.connect(url);
    try {
      const event = author.sign({ content: 'after hibernation' });
      expect(await writer.publish(event)).toBe('');
      expect((await heard).id).toBe(event.id);
      // The object did start again meanwhile: the subscription was carried on, not kept in memory.
      expect(starts()).toBe(before + 1);
    } finally {
      writer.close();
      subscriber.close();
    }
  }, 60_000);
});

describe('the idle rule on hibernating relay sockets', () => {
  let idle: Miniflare;
  const idleOutput = runtimeOutput();

  afterAll(async () => {
    await idle?.dispose();
  });

  it('closes a socket subscribed to nothing after the idle time on the object\'s alarm, after the object was evicted meanwhile', async () => {
    // Longer than the 10 s after which workerd evicts the object: a timer of the guard's would have kept it in memory.
    idle = new Miniflare({
      handleRuntimeStdio: idleOutput.handleRuntimeStdio,
      workers: isolatesSharingTheObject(bundle, { SVC_QUIET: 'true', SVC_RATE_LIMIT: 'false', SVC_NOSTR: 'true', SVC_SOCKET_IDLE_TIMEOUT: '13s' }),
    });
    const idleUrl = `${(await idle.ready).href.replace(/^http/, 'ws')}relay`;
    const socket = new WebSocket(idleUrl);
    const closed = new Promise<{ code: number; reason: string }>((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const started = idleOutput.text().match(READ_BACK)?.length ?? 0;
    expect(await closed).toEqual({ code: 1001, reason: 'idle: subscribed to nothing' });
    // The alarm started the object again: the socket had hibernated, and was carried on to be closed.
    expect(idleOutput.text().match(READ_BACK)?.length ?? 0).toBe(started + 1);
  }, 60_000);
});
