import { describe, expect, it } from 'vitest';
import { Delivery, RETRY_DELAYS_MS, type DeliveryJob } from '../../src/activitypub/delivery.ts';
import { StorageMessageQueue } from '../../src/activitypub/message-queue.ts';
import { QUEUE_CONTAINER } from '../../src/activitypub/paths.ts';
import { readRecord, recordPaths } from '../../src/activitypub/records.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

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
});

