/**
 * The portable suite's Nostr relay cases: nostr-tools as the client against `--nostr` on each runtime (on
 * Workers, the relay held by the shared-state Durable Object in workerd, through `wrangler dev`'s Miniflare).
 * The NIPs the relay implements (01, 09, 11, 40, 42) and its limits, over a real WebSocket.
 */
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay';
import { finalizeEvent } from 'nostr-tools/pure';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type { NostrEvent } from '../../src/nostr/event.ts';
import { Author, CLIENT_TIMEOUT_MS, plain, query } from '../nostr/support.ts';
import type { RunningTarget } from './suite.ts';

useWebSocketImplementation(WebSocket);

const now = () => Math.floor(Date.now() / 1000);

export const RELAY_OPTIONS: Readonly<Record<string, string>> = { SVC_QUIET: 'true', SVC_RATE_LIMIT: 'false', SVC_NOSTR: 'true' };

/** Registers the relay cases for one runtime; `start` launches it with the given options. */
export function describePortableRelay(runtime: string, start: (options: Readonly<Record<string, string>>) => Promise<RunningTarget>): void {
  describe(`portable relay cases on ${runtime}`, { timeout: 60_000 }, () => {
    let target: RunningTarget;
    let url = '';
    const relays: Relay[] = [];
    const connect = async () => {
      const relay = await Relay.connect(url);
      relay.publishTimeout = CLIENT_TIMEOUT_MS;
      relays.push(relay);
      return relay;
    };
    const alice = new Author();
    const bob = new Author();

    beforeAll(async () => {
      target = await start(RELAY_OPTIONS);
      url = `${target.base.replace(/^http/, 'ws')}/relay`;
    }, 120_000);

    afterAll(async () => {
      for (const relay of relays) relay.close();
      await target?.stop();
    });

    it('answers its NIP-11 document with the NIPs and limits it enforces', async () => {
      const response = await fetch(`${target.base}/relay`, { headers: { accept: 'application/nostr+json' } });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/nostr+json');
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      const info = (await response.json()) as { supported_nips: number[]; limitation: Record<string, unknown> };
      expect(info.supported_nips).toEqual([1, 9, 11, 40, 42]);
      expect(info.limitation).toMatchObject({ max_message_length: 65536, max_subscriptions: 20, max_filters: 10, max_limit: 500 });
      expect((await fetch(`${target.base}/relay`)).status).toBe(426);
    });

    it('accepts a signed event, refuses a forged one, serves it to a REQ and to a subscriber on another connection (NIP-01)', async () => {
      const writer = await connect();
      const reader = await connect();
      const first = alice.sign({ content: `first from ${runtime}`, tags: [['t', 'portable']] });
      expect(await writer.publish(first)).toBe('');
      await expect(writer.publish({ ...first, content: 'forged' })).rejects.toThrow(/^invalid: /);
      expect((await query(reader, [{ authors: [alice.pubkey] }])).map((event) => event.id)).toEqual([first.id]);

      const heard = new Promise<NostrEvent>((resolve) => {
        reader.subscribe([{ '#t': ['portable'], since: now() - 5 }], { onevent: (event) => void (event.id !== first.id && resolve(plain(event))) });
      });
      const second = bob.sign({ content: 'second', tags: [['t', 'portable']] });
      expect(await writer.publish(second)).toBe('');
      expect((await heard).id).toBe(second.id);
    });

    it('keeps the newest of a replaceable event, drops ephemeral ones after delivery, and deletes on request (NIP-09)', async () => {
      const client = await connect();
      const t = now();
      const older = alice.sign({ kind: 0, created_at: t - 10, content: '{"name":"old"}' });
      const newer = alice.sign({ kind: 0, created_at: t - 5, content: '{"name":"new"}' });
      expect(await client.publish(newer)).toBe('');
      await expect(client.publish(older)).rejects.toThrow(/^duplicate: /);
      expect((await query(client, [{ kinds: [0], authors: [alice.pubkey] }])).map((event) => event.id)).toEqual([newer.id]);
      expect(await client.publish(alice.sign({ kind: 20001, content: 'ephemeral' }))).toBe('');
      expect(await query(client, [{ kinds: [20001], authors: [alice.pubkey] }])).toEqual([]);

      const note = alice.sign({ content: 'to be deleted' });
      expect(await client.publish(note)).toBe('');
      expect(await client.publish(bob.sign({ kind: 5, tags: [['e', note.id]] }))).toBe('');
      expect((await query(client, [{ ids: [note.id] }])).length).toBe(1);
      expect(await client.publish(alice.sign({ kind: 5, tags: [['e', note.id]] }))).toBe('');
      expect(await query(client, [{ ids: [note.id] }])).toEqual([]);
      await expect(client.publish(note)).rejects.toThrow(/^blocked: /);
    });

    it('refuses an expired event and hides one that expires (NIP-40)', async () => {
      const client = await connect();
      await expect(client.publish(alice.sign({ content: 'gone', tags: [['expiration', String(now() - 1)]] }))).rejects.toThrow(/^invalid: .*expired/);
      const soon = alice.sign({ content: 'soon gone', tags: [['expiration', String(now() + 2)]] });
      expect(await client.publish(soon)).toBe('');
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(await query(client, [{ ids: [soon.id] }])).toEqual([]);
    });

    it('serves direct messages only to their parties once they authenticate (NIP-42)', async () => {
      const sender = await connect();
      const dm = alice.sign({ kind: 4, content: 'secret', tags: [['p', bob.pubkey]] });
      expect(await sender.publish(dm)).toBe('');
      const stranger = await connect();
      await expect(query(stranger, [{ kinds: [4] }])).rejects.toThrow(/auth-required: /);
      const recipient = await connect();
      await vi.waitFor(() => recipient.auth(async (template) => finalizeEvent(template, bob.secret)), { timeout: CLIENT_TIMEOUT_MS, interval: 20 });
      expect((await query(recipient, [{ kinds: [4], '#p': [bob.pubkey] }])).map((event) => event.id)).toEqual([dm.id]);
    });

    it('holds to its limits: too many filters, an oversized message', async () => {
      const client = await connect();
      await expect(query(client, Array.from({ length: 11 }, () => ({ kinds: [1] })))).rejects.toThrow(/invalid: at most 10 filters/);
      const raw = new WebSocket(url);
      const notices: string[] = [];
      raw.on('message', (data) => {
        const message = JSON.parse(String(data)) as unknown[];
        if (message[0] === 'NOTICE') notices.push(String(message[1]));
      });
      await new Promise((resolve) => raw.once('open', resolve));
      raw.send(JSON.stringify(['REQ', 'x', { search: 'y'.repeat(70_000) }]));
      const closed = await new Promise<number>((resolve) => raw.once('close', (code) => resolve(code)));
      // Past the 64 KB frame limit the runtime closes the socket (1009); no runtime takes such a message.
      expect(closed).toBe(1009);
      expect(notices.every((text) => !text.startsWith('error:'))).toBe(true);
    });
  });
}
