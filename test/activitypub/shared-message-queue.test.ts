/**
 * The delivery queue with several instances on one data directory (`--redis-url`): each instance has its own
 * fs driver and its own Redis connection, as separate `svc` processes would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { Delivery, RETRY_DELAYS_MS } from '../../src/activitypub/delivery.ts';
import { StorageMessageQueue, type MessageQueueOptions } from '../../src/activitypub/message-queue.ts';
import { QUEUE_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { withSharedPreconditions } from '../../src/cluster/shared-preconditions.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { useTestRedis } from '../support/redis.ts';
import { startLoopbackInbox } from './loopback-inbox.ts';

const KEY_ID = 'https://pod.example/profile/card#main-key';
const keys = crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const redis = useTestRedis();
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function dataDirectory(): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'svc-apqueue-'));
  roots.push(root);
  return root;
}

/** One instance on the data directory `root`, with the queue options `options` and the clock `now`. */
async function instance(root: string, logs: string[] = [], options: Omit<MessageQueueOptions, 'shared'> = {}, now: () => number = Date.now) {
  const shared = await redis.connect();
  const storage = withSharedPreconditions(await FsDriver.open(root, { revalidateAfterMs: 0 }), shared);
  return { storage, queue: new StorageMessageQueue(storage, now, (line) => logs.push(line), { ...options, shared }) };
}

/** An inbox that records every activity posted to it (the instances' outbound fetch). */
function recordingInbox() {
  const received: string[] = [];
  const listeners = new Set<() => void>();
  return {
    received,
    fetch: async (_url: string | URL, init?: RequestInit) => {
      // A delivery takes a moment, as over the network: the other instance's listener runs meanwhile.
      await pause(5);
      received.push((JSON.parse(String(init!.body)) as { id: string }).id);
      for (const listener of listeners) listener();
      return new Response(null, { status: 202 });
    },
    /** Resolves once `count` deliveries arrived. */
    until(count: number): Promise<void> {
      return new Promise((resolve) => {
        const check = () => {
          if (received.length >= count) resolve();
        };
        listeners.add(check);
        check();
      });
    },
  };
}

function activity(n: number) {
  return { '@context': 'https://www.w3.org/ns/activitystreams', id: `https://pod.example/profile/card/activities/${n}`, type: 'Create', actor: 'https://pod.example/profile/card' };
}

describe('the delivery queue across instances', () => {
  it('delivers each queued activity once, whichever instance queued it, with both listening', async () => {
    const root = await dataDirectory();
    const inbox = recordingInbox();
    const { privateKey } = await keys;
    const deliveries = await Promise.all([instance(root), instance(root)]).then((instances) =>
      instances.map(({ queue }) => new Delivery({ queue, fetch: inbox.fetch, privateKey: () => privateKey, log: () => {} })),
    );
    const stop = new AbortController();
    const listening = deliveries.map((delivery) => delivery.listen(stop.signal));
    const count = 40;
    for (let n = 0; n < count; n++) await deliveries[n % 2]!.send(activity(n), ['https://remote.example/inbox'], KEY_ID);
    await inbox.until(count);
    stop.abort();
    await Promise.all(listening);
    // A last pass of each: nothing is left to deliver again.
    for (const delivery of deliveries) await delivery.deliverDue();
    expect(inbox.received.toSorted()).toEqual(Array.from({ length: count }, (_, n) => activity(n).id).toSorted());
    expect(await recordPaths(await FsDriver.open(root), QUEUE_CONTAINER)).toEqual([]);
  });

  it('keeps the order of one inbox across instances: a Create waiting for its retry holds back the Delete the other queued', async () => {
    const root = await dataDirectory();
    let now = 1_000_000;
    const inbox = await startLoopbackInbox();
    const { privateKey } = await keys;
    const fetch = nodeOutboundFetch({ allowPrivate: true });
    const [first, second] = await Promise.all([instance(root, [], {}, () => now), instance(root, [], {}, () => now)]).then((instances) =>
      instances.map(({ queue }) => new Delivery({ queue, fetch, privateKey: () => privateKey, log: () => {} })),
    );
    const both = () => Promise.all([first!.deliverDue(), second!.deliverDue()]);
    const create = activity(1);
    const deletion = { ...activity(1), id: `${activity(1).id}/delete`, type: 'Delete' };
    try {
      await inbox.down();
      await first!.send(create, [inbox.url], KEY_ID);
      await both();
      now += RETRY_DELAYS_MS[0]!;
      await both();
      await second!.send(deletion, [inbox.url], KEY_ID);
      await both();
      await inbox.up();
      for (const step of [RETRY_DELAYS_MS[0]!, RETRY_DELAYS_MS[1]!]) {
        now += step;
        await both();
        await both();
      }
      expect(inbox.received).toEqual([
        { type: 'Create', id: create.id },
        { type: 'Delete', id: deletion.id },
      ]);
      expect(await recordPaths(await FsDriver.open(root), QUEUE_CONTAINER)).toEqual([]);
    } finally {
      await inbox.close();
    }
  });

  it('hands a message claimed by an instance that died to another once the claim expired', async () => {
    const root = await dataDirectory();
    const crashed = await instance(root, [], { claimMs: 3000 });
    const survivor = await instance(root, [], { claimMs: 3000 });
    await crashed.queue.enqueue('the message');
    let claimed!: () => void;
    const claimedNow = new Promise<void>((resolve) => (claimed = resolve));
    // The crashed instance claims the message and never finishes with it.
    void crashed.queue.handleDue(() => {
      claimed();
      return new Promise<void>(() => {});
    });
    await claimedNow;
    const handled: unknown[] = [];
    await survivor.queue.handleDue((message) => void handled.push(message));
    expect(handled).toEqual([]);
    for (let attempt = 0; attempt < 100 && handled.length === 0; attempt++) {
      await pause(200);
      await survivor.queue.handleDue((message) => void handled.push(message));
    }
    expect(handled).toEqual(['the message']);
    expect(await recordPaths(survivor.storage, QUEUE_CONTAINER)).toEqual([]);
  });

  it('waits while Redis is away, then delivers what was queued meanwhile, once', async () => {
    const root = await dataDirectory();
    const logs: string[] = [];
    const { queue } = await instance(root, logs);
    const received: unknown[] = [];
    const stop = new AbortController();
    await redis.stop();
    await queue.enqueue('queued during the outage');
    const listening = queue.listen(
      (message) => {
        received.push(message);
        stop.abort();
      },
      { signal: stop.signal },
    );
    while (!logs.some((line) => line.includes('could not be worked through'))) await pause(50);
    expect(received).toEqual([]);
    await redis.start();
    await listening;
    expect(received).toEqual(['queued during the outage']);
    await queue.handleDue((message) => void received.push(message));
    expect(received).toEqual(['queued during the outage']);
  }, 60_000);
});

describe('two apps on one data directory (--activitypub --redis-url)', () => {
  it('sends each activity posted through either app to its inbox once', async () => {
    const root = await dataDirectory();
    const inboxes = new Map<string, string[]>();
    /** The remote servers: any `@name@remote.example` is an actor whose inbox records what it receives. */
    const remote = async (url: string | URL, init?: RequestInit) => {
      const target = new URL(url);
      const actor = (name: string) => `https://remote.example/users/${name}`;
      if (target.pathname === '/.well-known/webfinger') {
        const name = /^acct:(\w+)@remote\.example$/.exec(target.searchParams.get('resource')!)![1]!;
        return Response.json({ subject: `acct:${name}@remote.example`, links: [{ rel: 'self', type: 'application/activity+json', href: actor(name) }] });
      }
      const inbox = /^\/users\/(\w+)\/inbox$/.exec(target.pathname);
      if (inbox && init?.method === 'POST') {
        await pause(5);
        inboxes.set(inbox[1]!, [...(inboxes.get(inbox[1]!) ?? []), (JSON.parse(String(init.body)) as { id: string }).id]);
        return new Response(null, { status: 202 });
      }
      const name = /^\/users\/(\w+)$/.exec(target.pathname)?.[1];
      if (name) return Response.json({ '@context': 'https://www.w3.org/ns/activitystreams', id: actor(name), type: 'Person', preferredUsername: name, inbox: `${actor(name)}/inbox` });
      return new Response(null, { status: 404 });
    };
    const config = resolveConfig({ flags: { quiet: true, rateLimit: false, activitypub: true, singleUser: true, singleUserName: '' } });
    const apps: App[] = [];
    for (let i = 0; i < 2; i++) {
      const sharedState = await redis.connect();
      const storage = await FsDriver.open(root, { revalidateAfterMs: 0 });
      const app = createApp(config, { runtime: 'test', storage, log: () => undefined, fetch: remote, activityPub: () => import('../../src/activitypub/federation.ts'), sharedState });
      apps.push(app);
    }
    const { token } = await apps[0]!.singleUserPod!();
    await apps[1]!.singleUserPod!();
    const count = 20;
    const posted = await Promise.all(
      Array.from({ length: count }, (_, n) =>
        apps[n % 2]!.fetch(
          new Request('http://pod.test/profile/card/outbox', { method: 'POST', headers: { 'content-type': 'application/activity+json', authorization: `Bearer ${token}` }, body: JSON.stringify({ type: 'Follow', object: `@user${n}@remote.example` }) }),
        ),
      ),
    );
    expect(posted.map((response) => response.status)).toEqual(Array(count).fill(201));
    for (let attempt = 0; attempt < 400 && [...inboxes.values()].flat().length < count; attempt++) await pause(50);
    // Both listeners poll once more (every 5 s): a message sent twice would show up by then.
    await pause(6000);
    expect(await recordPaths(await FsDriver.open(root), QUEUE_CONTAINER)).toEqual([]);
    expect([...inboxes.keys()].toSorted()).toEqual(Array.from({ length: count }, (_, n) => `user${n}`).toSorted());
    for (const received of inboxes.values()) expect(received).toHaveLength(1);
    for (const app of apps) await app.close();
  }, 60_000);
});
