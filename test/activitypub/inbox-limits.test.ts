/**
 * The inboxes' own body limit and rate limits, with activities signed by the actors of a real fedify server
 * on loopback (./fedify-peer.ts) sent to a server in this process.
 */
import { generateCryptoKeyPair } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { BASE, makeApp } from '../support/app.ts';
import { useFedifyPeer } from './fedify-peer.ts';
import { offlinePlatform, storageWithActorKeys } from './offline.ts';
import { deliverSigned, noteCreate } from './signed.ts';

const fedifyPeer = useFedifyPeer();

async function inboxApp(flags: Record<string, unknown> = {}) {
  const test = makeApp({ activitypub: true, singleUser: true, singleUserName: '', ...flags }, await storageWithActorKeys(), { ...offlinePlatform, fetch: nodeOutboundFetch({ allowPrivate: true }) });
  await test.app.singleUserPod!();
  return test;
}

describe('the ActivityPub inboxes\' limits', { timeout: 60_000 }, () => {
  it('refuses an activity larger than --ap-inbox-max-body-size with 413, with or without a Content-Length, and stores nothing', async () => {
    const peer = fedifyPeer();
    const app = await inboxApp();
    const large = noteCreate(peer, 'large', `<p>${'word '.repeat(60_000)}</p>`);
    for (const path of ['/inbox', '/profile/card/inbox']) {
      const refused = await deliverSigned(app, peer, large, path);
      expect(refused.status).toBe(413);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
    }
    expect(app.config.apInboxMaxBodySize).toBe(256 * 1024);
    // Streamed, the body is cut off once past the limit.
    const small = await inboxApp({ apInboxMaxBodySize: '4KB' });
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 1024;
        controller.enqueue(new TextEncoder().encode(' '.repeat(1024)));
      },
    });
    const streamed = await small.app.fetch(new Request(`${BASE}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json', signature: `keyId="${peer.keyId}"` }, body: endless, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(64 * 1024);
    expect((await deliverSigned(small, peer, noteCreate(peer, 'fits', '<p>fits</p>'))).status).toBe(202);
    expect(await recordPaths(app.storage, INBOX_CONTAINER)).toEqual([]);
    expect(await recordPaths(small.storage, INBOX_CONTAINER)).toHaveLength(1);
  });

  it('limits activities per remote actor and per remote server: 429 with Retry-After; forged signatures count for nobody', async () => {
    const peer = fedifyPeer();
    const app = await inboxApp({ rateLimit: true, rateLimitApActor: 2, rateLimitApHost: 3 });
    const forger = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    for (let n = 0; n < 4; n++) {
      const forged = await deliverSigned(app, { ...peer, keys: forger }, noteCreate(peer, `forged-${n}`, '<p>forged</p>'));
      expect(forged.status).toBe(401);
    }
    const statuses: number[] = [];
    for (let n = 0; n < 3; n++) statuses.push((await deliverSigned(app, peer, noteCreate(peer, `carol-${n}`, '<p>hi</p>'))).status);
    expect(statuses).toEqual([202, 202, 429]);
    const limited = await deliverSigned(app, peer, noteCreate(peer, 'carol-again', '<p>hi</p>'));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toBe('application/problem+json');
    expect((await limited.json()).detail).toContain('--rate-limit-ap-actor');
    // Mallory is on carol's server: one more from it fits the server's 3 a minute, the next does not.
    expect((await deliverSigned(app, peer.mallory, noteCreate(peer.mallory, 'm-1', '<p>hi</p>'))).status).toBe(202);
    const serverLimited = await deliverSigned(app, peer.mallory, noteCreate(peer.mallory, 'm-2', '<p>hi</p>'));
    expect(serverLimited.status).toBe(429);
    expect((await serverLimited.json()).detail).toContain('--rate-limit-ap-host');
    expect(await recordPaths(app.storage, INBOX_CONTAINER)).toHaveLength(3);
  });
});
