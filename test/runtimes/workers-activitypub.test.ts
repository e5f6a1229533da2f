/**
 * ActivityPub deliveries on Workers are made by the shared-state Durable Object's alarm, retries included:
 * the bundle of `wrangler deploy --dry-run` in Miniflare, and an independent fedify server on loopback that
 * refuses the first delivery (503). The Accept arrives with the retry 30 s later, with nothing of an
 * isolate alive in between. The portable ActivityPub cases cover the rest on Workers.
 */
import { Follow, isActor } from '@fedify/fedify';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFedifyPeer, type FedifyPeer } from '../activitypub/fedify-peer.ts';
import { ACTIVITYPUB_OPTIONS } from '../portable/activitypub-suite.ts';
import { buildWorkerBundle, WORKER_COMPATIBILITY, type WorkerBundle } from '../support/worker-bundle.ts';

let bundle: WorkerBundle;
let mf: Miniflare;
let peer: FedifyPeer;
let base: string;

beforeAll(async () => {
  [bundle, peer] = await Promise.all([buildWorkerBundle(), startFedifyPeer()]);
  mf = new Miniflare({
    modules: true,
    scriptPath: bundle.script,
    modulesRoot: bundle.outdir,
    ...WORKER_COMPATIBILITY,
    r2Buckets: ['PODS'],
    durableObjects: { SHARED: { className: 'SharedStateObject', useSQLite: true } },
    bindings: { ...ACTIVITYPUB_OPTIONS },
  });
  base = (await mf.ready).href.replace(/\/$/, '');
}, 120_000);

afterAll(async () => {
  await mf?.dispose();
  await Promise.all([bundle?.remove(), peer?.close()]);
});

describe('ActivityPub delivery on Workers', () => {
  it('retries a refused delivery on the object\'s alarm: the Accept arrives with the second attempt', async () => {
    const actor = `${base}/profile/card`;
    const ctx = peer.context();
    const svcActor = await ctx.lookupObject(actor);
    expect(isActor(svcActor)).toBe(true);
    peer.refuseNext = 1;
    const follow = new Follow({ id: new URL(`${peer.actorId}#follow-retried`), actor: new URL(peer.actorId), object: new URL(actor) });
    // The Follow goes out before the refusal is armed for the Accept: fedify sends it from here, not through the peer's server.
    await ctx.sendActivity({ identifier: 'carol' }, svcActor as never, follow);
    const accepts = () => peer.receivedJson.filter((json) => json.type === 'Accept' && (json.object as { id?: string }).id === follow.id!.href);
    for (let waited = 0; waited < 75_000 && !peer.received.some((activity) => activity.constructor.name === 'Accept'); waited += 500) {
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(peer.refuseNext).toBe(0);
    expect(accepts()).toHaveLength(2);
    expect(peer.received.some((activity) => activity.constructor.name === 'Accept' && activity.objectId?.href === follow.id!.href)).toBe(true);
  }, 120_000);

  it("sends a post to the inboxes of several servers, queued at once for the object's alarm, each once", async () => {
    const actor = `${base}/profile/card`;
    const others = await Promise.all([startFedifyPeer(), startFedifyPeer()]);
    try {
      const servers = [peer, ...others];
      for (const [index, server] of servers.entries()) {
        const ctx = server.context();
        const follow = new Follow({ id: new URL(`${server.actorId}#follow-${index}`), actor: new URL(server.actorId), object: new URL(actor) });
        await ctx.sendActivity({ identifier: 'carol' }, (await ctx.lookupObject(actor)) as never, follow);
      }
      const owner = await fetch(`${base}/.pods/owner-token`, { method: 'POST', headers: { authorization: `Bearer ${ACTIVITYPUB_OPTIONS.SVC_SINGLE_USER_SECRET}` } });
      const { token } = (await owner.json()) as { token: string };
      const posted = await fetch(`${actor}/outbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json', authorization: `Bearer ${token}` }, body: JSON.stringify({ type: 'Note', content: 'to every follower' }) });
      expect(posted.status).toBe(201);
      const createId = posted.headers.get('location');
      const creates = (server: FedifyPeer) => server.receivedJson.filter((json) => json.id === createId);
      await vi.waitFor(() => expect(servers.map((server) => creates(server).length)).toEqual([1, 1, 1]), { timeout: 30_000, interval: 250 });
    } finally {
      await Promise.all(others.map((server) => server.close()));
    }
  }, 120_000);
});
