import { describe, expect, it } from 'vitest';
import { Delivery, RETRY_DELAYS_MS, type DeliveryJob } from '../../src/activitypub/delivery.ts';
import { StorageMessageQueue } from '../../src/activitypub/message-queue.ts';
import { QUEUE_CONTAINER } from '../../src/activitypub/paths.ts';
import { readRecord, recordPaths } from '../../src/activitypub/records.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { startLoopbackInbox } from './loopback-inbox.ts';

const KEY_ID = 'https://pod.example/profile/card#main-key';
const INBOX = 'https://remote.example/users/x/inbox';
const ACTIVITY = { '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://pod.example/profile/card/activities/1', type: 'Create', actor: 'https://pod.example/profile/card' };

const keys = crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify']);

/** A delivery whose outbound fetch answers with `answers` in turn, recording each request it got. */
async function setUp(answers: (() => Response)[]) {
  let now = 1_000_000;
  const storage = new MemoryDriver();
  const queue = new StorageMessageQueue(storage, () => now, () => {});
  const requests: Request[] = [];
  const { privateKey } = await keys;
  const delivery = new Delivery({
    queue,
    privateKey: () => privateKey,
    log: () => {},
    fetch: async (url, init) => {
      requests.push(new Request(url, init));
      return answers.shift()!();
    },
  });
  const runOnce = () => delivery.deliverDue();
  const queued = async () => Promise.all((await recordPaths(storage, QUEUE_CONTAINER)).map(async (path) => (await readRecord<{ due: number; message: DeliveryJob }>(storage, path))!.value));
  return { delivery, requests, runOnce, queued, advance: (ms: number) => (now += ms), now: () => now };
}

describe('Delivery', () => {
  it('queues one send for all its inboxes at once: the runtime that works the queue is told once', async () => {
    const scheduled: number[] = [];
    const storage = new MemoryDriver();
    const queue = new StorageMessageQueue(storage, Date.now, () => {}, { schedule: (ms) => scheduled.push(ms) });
    const { privateKey } = await keys;
    const delivery = new Delivery({ queue, privateKey: () => privateKey, log: () => {}, fetch: async () => new Response(null, { status: 202 }) });
    await delivery.send(ACTIVITY, [INBOX, 'https://other.example/inbox', 'https://third.example/inbox'], KEY_ID);
    expect(scheduled).toEqual([0]);
    expect(await recordPaths(storage, QUEUE_CONTAINER)).toHaveLength(3);
  });

  it('sends each activity signed (draft-cavage, with Digest) to each inbox once', async () => {
    const { delivery, requests, runOnce } = await setUp([() => new Response(null, { status: 202 }), () => new Response(null, { status: 202 })]);
    await delivery.send(ACTIVITY, [INBOX, INBOX, 'https://other.example/inbox'], KEY_ID);
    await runOnce();
    expect(requests.map((request) => request.url)).toEqual([INBOX, 'https://other.example/inbox']);
    const [request] = requests;
    expect(request!.headers.get('signature')).toContain(`keyId="${KEY_ID}"`);
    expect(request!.headers.get('digest')).toMatch(/^SHA-256=/);
    // The signature covers the request line, the body's digest and the host; the fedify peer and the
    // two-server tests (e2e.test.ts) check that receivers accept it.
    expect(request!.headers.get('signature')).toMatch(/headers="\(request-target\) [^"]*digest[^"]*host/);
    const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(await request!.text()));
    expect(request!.headers.get('digest')).toBe(`SHA-256=${btoa(String.fromCharCode(...new Uint8Array(digest)))}`);
  });

  it('queues a failed delivery again with the first back-off delay, and sends it once due', async () => {
    const { delivery, requests, runOnce, queued, advance, now } = await setUp([() => new Response('busy', { status: 503 }), () => new Response(null, { status: 202 })]);
    await delivery.send(ACTIVITY, [INBOX], KEY_ID);
    await runOnce();
    expect(requests).toHaveLength(1);
    const [retry] = await queued();
    expect(retry).toMatchObject({ due: now() + RETRY_DELAYS_MS[0]!, message: { inbox: INBOX, attempt: 2 } });
    await runOnce();
    expect(requests).toHaveLength(1);
    advance(RETRY_DELAYS_MS[0]!);
    await runOnce();
    expect(requests).toHaveLength(2);
    expect(await queued()).toEqual([]);
  });

  it('does not retry what can never succeed: a 4xx answer or a target the guard refuses', async () => {
    const { delivery, requests, runOnce, queued } = await setUp([
      () => new Response('gone', { status: 410 }),
      () => {
        throw new OutboundFetchRefused(INBOX, 'a private address');
      },
    ]);
    await delivery.send(ACTIVITY, [INBOX, 'https://other.example/inbox'], KEY_ID);
    await runOnce();
    expect(requests).toHaveLength(2);
    expect(await queued()).toEqual([]);
  });

  it('keeps the order of what is queued for one inbox while it is down: the Create arrives before the Delete of its post', async () => {
    let now = 1_000_000;
    const queue = new StorageMessageQueue(new MemoryDriver(), () => now, () => {});
    const { privateKey } = await keys;
    const inbox = await startLoopbackInbox();
    const logs: string[] = [];
    const delivery = new Delivery({ queue, privateKey: () => privateKey, log: (line) => logs.push(line), fetch: nodeOutboundFetch({ allowPrivate: true }) });
    const create = { ...ACTIVITY, id: 'https://pod.example/profile/card/activities/2' };
    const deletion = { ...ACTIVITY, id: 'https://pod.example/profile/card/activities/2/delete', type: 'Delete' };
    try {
      await inbox.down();
      await delivery.send(create, [inbox.url], KEY_ID);
      await delivery.deliverDue();
      now += RETRY_DELAYS_MS[0]!;
      await delivery.deliverDue();
      // The Create now waits 5 minutes for its third attempt; the Delete is queued behind it.
      await delivery.send(deletion, [inbox.url], KEY_ID);
      await delivery.deliverDue();
      await inbox.up();
      for (const step of [RETRY_DELAYS_MS[0]!, RETRY_DELAYS_MS[1]!]) {
        now += step;
        await delivery.deliverDue();
      }
      expect(inbox.received).toEqual([
        { type: 'Create', id: create.id },
        { type: 'Delete', id: deletion.id },
      ]);
      expect(logs.filter((line) => line.includes('failed'))).toHaveLength(2);
    } finally {
      await inbox.close();
    }
  });

  it('gives an inbox up after the last retry with what was queued behind, and starts afresh with what comes later', async () => {
    const { delivery, requests, runOnce, queued, advance } = await setUp(Array.from({ length: RETRY_DELAYS_MS.length + 2 }, () => () => new Response('down', { status: 503 })));
    await delivery.send(ACTIVITY, [INBOX], KEY_ID);
    await delivery.send({ ...ACTIVITY, id: `${ACTIVITY.id}/delete`, type: 'Delete' }, [INBOX], KEY_ID);
    await runOnce();
    for (const delay of RETRY_DELAYS_MS) {
      advance(delay);
      await runOnce();
    }
    expect(requests.map((request) => request.url)).toEqual(Array(RETRY_DELAYS_MS.length + 1).fill(INBOX));
    expect(await queued()).toEqual([]);
    await delivery.send({ ...ACTIVITY, id: `${ACTIVITY.id}/later` }, [INBOX], KEY_ID);
    await runOnce();
    expect(requests).toHaveLength(RETRY_DELAYS_MS.length + 2);
  });
});
