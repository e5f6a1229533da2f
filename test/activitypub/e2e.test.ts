/**
 * Federation between real processes on loopback: two `svc --activitypub` servers, and an independent server
 * written on fedify (./fedify-peer.ts). The private-address rule is lifted (--allow-private-fetch).
 */
import { Create, Follow, generateCryptoKeyPair, isActor, Note, signRequest } from '@fedify/fedify';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { startFedifyPeer, type FedifyPeer } from './fedify-peer.ts';
import { actorSchema, jrdSchema, nodeInfo21Schema, schemaErrors } from './schemas.ts';

const AS = 'application/activity+json';
const ARGS = ['--activitypub', '--single-user', '--single-user-name', '', '--allow-private-fetch', '--quiet'];

interface Pod {
  svc: RunningSvc;
  base: string;
  actor: string;
  token: string;
}

async function startPod(name: string): Promise<Pod> {
  const svc = await startSvc([...ARGS, '--ap-username', name, '--ap-display-name', name.toUpperCase()]);
  const token = /owner token[^\n]*\n(\S+)/.exec(svc.output())![1]!;
  return { svc, base: svc.base, actor: `${svc.base}/profile/card`, token };
}

async function getJson(url: string, headers: Record<string, string> = { accept: AS }): Promise<any> {
  const response = await fetch(url, { headers });
  expect(response.status, url).toBe(200);
  return response.json();
}

/** The ids of a collection's items, all pages. */
async function collectionIds(url: string): Promise<string[]> {
  const ids: string[] = [];
  let page: string | undefined = (await getJson(url)).first;
  while (page) {
    const body = await getJson(page);
    for (const item of [body.orderedItems ?? []].flat()) ids.push(typeof item === 'string' ? item : item.id);
    page = body.next;
  }
  return ids;
}

async function postOutbox(pod: Pod, activity: object): Promise<Response> {
  return fetch(`${pod.actor}/outbox`, { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${pod.token}` }, body: JSON.stringify(activity) });
}

/** The activities stored in a pod's inbox container, read as the owner over HTTP. */
async function storedInbox(pod: Pod): Promise<any[]> {
  const files = await readdir(join(pod.svc.root, 'inbox', 'activitypub')).catch(() => []);
  const documents = files.filter((file) => file.endsWith('.json'));
  return Promise.all(documents.map((file) => getJson(`${pod.base}/inbox/activitypub/${file}`, { authorization: `Bearer ${pod.token}` })));
}

const contentOf = (activity: any): string | undefined => activity?.object?.content;

let alice: Pod;
let bob: Pod;
let peer: FedifyPeer;

beforeAll(async () => {
  // One after the other: two servers starting at once on a loaded machine may miss startSvc's start deadline.
  peer = await startFedifyPeer();
  alice = await startPod('alice');
  bob = await startPod('bob');
}, 120_000);

afterAll(async () => {
  await Promise.all([alice?.svc.stop(), bob?.svc.stop(), peer?.close()]);
});

describe('ActivityPub between processes', { timeout: 120_000 }, () => {
  it('serves WebFinger, NodeInfo 2.1 and the actor as their schemas say', async () => {
    const host = new URL(alice.base).host;
    const jrd = await getJson(`${alice.base}/.well-known/webfinger?resource=acct:alice@${host}`, {});
    expect(schemaErrors(jrdSchema, jrd)).toEqual([]);
    expect(jrd.links).toContainEqual({ rel: 'self', type: AS, href: alice.actor });
    expect((await fetch(`${alice.base}/.well-known/webfinger?resource=acct:nobody@${host}`)).status).toBe(404);
    expect((await fetch(`${alice.base}/.well-known/webfinger?resource=acct:`)).status).toBe(400);
    const links = await getJson(`${alice.base}/.well-known/nodeinfo`, {});
    expect(schemaErrors(nodeInfo21Schema, await getJson(links.links[0].href, {}))).toEqual([]);
    const actor = await getJson(alice.actor);
    expect(schemaErrors(actorSchema, actor)).toEqual([]);
    expect(actor).toMatchObject({ id: alice.actor, preferredUsername: 'alice', name: 'ALICE' });
  });

  it('follows, auto-accepts, delivers a post into the follower\'s pod, and undoes the follow', async () => {
    expect((await postOutbox(alice, { type: 'Follow', object: bob.actor })).status).toBe(201);
    await eventually(async () => ((await collectionIds(`${bob.actor}/followers`)).includes(alice.actor) ? true : undefined), "alice in bob's followers");
    await eventually(async () => ((await collectionIds(`${alice.actor}/following`)).includes(bob.actor) ? true : undefined), "bob in alice's following (Accept arrived)");

    const posted = await postOutbox(bob, { type: 'Note', content: 'Hello from bob' });
    expect(posted.status).toBe(201);
    const createId = posted.headers.get('location');
    const stored = await eventually(async () => (await storedInbox(alice)).find((activity) => activity.id === createId), "bob's post in alice's pod");
    expect(stored).toMatchObject({ type: 'Create', actor: bob.actor });
    expect(contentOf(stored)).toBe('Hello from bob');
    // The stored copy is the owner's: anonymous readers are refused.
    const [file] = (await readdir(join(alice.svc.root, 'inbox', 'activitypub'))).filter((name) => name.endsWith('.json'));
    expect((await fetch(`${alice.base}/inbox/activitypub/${file}`)).status).toBe(401);

    expect((await postOutbox(alice, { type: 'Undo', object: { type: 'Follow', object: bob.actor } })).status).toBe(204);
    await eventually(async () => ((await collectionIds(`${bob.actor}/followers`)).includes(alice.actor) ? undefined : true), "alice gone from bob's followers");
    expect(await collectionIds(`${alice.actor}/following`)).not.toContain(bob.actor);
  });

  it('exchanges Follow/Accept and Notes with an independent fedify server, both ways', async () => {
    // svc follows the fedify actor; fedify accepts.
    expect((await postOutbox(alice, { type: 'Follow', object: peer.actorId })).status).toBe(201);
    await eventually(async () => ((await collectionIds(`${alice.actor}/following`)).includes(peer.actorId) ? true : undefined), 'carol in alice\'s following');

    // The fedify actor follows svc; svc accepts.
    const ctx = peer.context();
    const svcActor = await ctx.lookupObject(alice.actor);
    expect(isActor(svcActor)).toBe(true);
    const followId = new URL(`${peer.actorId}#follow-alice`);
    await ctx.sendActivity({ identifier: 'carol' }, svcActor as never, new Follow({ id: followId, actor: new URL(peer.actorId), object: new URL(alice.actor) }));
    await eventually(async () => ((await collectionIds(`${alice.actor}/followers`)).includes(peer.actorId) ? true : undefined), "carol in alice's followers");
    await eventually(async () => peer.received.find((activity) => activity.constructor.name === 'Accept' && activity.objectId?.href === followId.href), 'the Accept at carol');
    // The Follow comes embedded, as Mastodon sends it: carol need not fetch it back.
    const accept = peer.receivedJson.find((json) => json.type === 'Accept' && (json.object as { id?: string }).id === followId.href);
    expect(accept?.object).toEqual({ id: followId.href, type: 'Follow', actor: peer.actorId, object: alice.actor });

    // svc posts; the Note reaches the fedify server.
    const posted = await postOutbox(alice, { type: 'Note', content: 'Hello, carol' });
    const createId = posted.headers.get('location');
    const create = await eventually(async () => peer.received.find((activity) => activity.id?.href === createId), 'alice\'s Create at carol');
    const note = await (create as Create).getObject();
    expect(note).toBeInstanceOf(Note);
    expect(String((note as Note).content)).toBe('Hello, carol');

    // The fedify actor posts to svc; it lands in alice's pod.
    const carolCreate = new Create({
      id: new URL(`${peer.actorId}/posts/1/activity`),
      actor: new URL(peer.actorId),
      to: new URL(alice.actor),
      object: new Note({ id: new URL(`${peer.actorId}/posts/1`), attribution: new URL(peer.actorId), to: new URL(alice.actor), content: 'Hi alice, from fedify' }),
    });
    await ctx.sendActivity({ identifier: 'carol' }, svcActor as never, carolCreate);
    const stored = await eventually(async () => (await storedInbox(alice)).find((activity) => activity.id === carolCreate.id!.href), "carol's post in alice's pod");
    expect(contentOf(stored)).toBe('Hi alice, from fedify');
  });

  describe('inbox refusals (401, nothing stored)', () => {
    const inboxUrl = () => `${alice.actor}/inbox`;
    let sequence = 0;
    const activity = (actor: string) => ({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${peer.actorId}/posts/refused-${++sequence}/activity`,
      type: 'Create',
      actor,
      to: alice.actor,
      object: { id: `${peer.actorId}/posts/refused-${sequence}`, type: 'Note', attributedTo: actor, content: 'should not be stored' },
    });
    const signed = (body: string, key: CryptoKey, keyId: string, headers: Record<string, string> = {}) =>
      signRequest(new Request(inboxUrl(), { method: 'POST', headers: { 'content-type': AS, ...headers }, body }), key, new URL(keyId));

    async function expectRefused(request: Request, body?: string): Promise<void> {
      const before = (await storedInbox(alice)).length;
      const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: body ?? (await request.text()) });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect((await storedInbox(alice)).length).toBe(before);
    }

    it('refuses a forged signature (a key other than the one keyId names)', async () => {
      const forger = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
      await expectRefused(await signed(JSON.stringify(activity(peer.actorId)), forger.privateKey, peer.keyId));
    });

    it('refuses a body that does not match its Digest', async () => {
      const request = await signed(JSON.stringify(activity(peer.actorId)), peer.keys.privateKey, peer.keyId);
      await expectRefused(request, JSON.stringify(activity(peer.actorId)));
    });

    it('refuses a stale Date', async () => {
      const stale = new Date(Date.now() - 3600_000).toUTCString();
      await expectRefused(await signed(JSON.stringify(activity(peer.actorId)), peer.keys.privateKey, peer.keyId, { date: stale }));
    });

    it('refuses an activity whose actor does not own the signing key', async () => {
      await expectRefused(await signed(JSON.stringify(activity(bob.actor)), peer.keys.privateKey, peer.keyId));
    });

    it('stores a correctly signed activity once, however often it comes', async () => {
      const body = JSON.stringify(activity(peer.actorId));
      const before = (await storedInbox(alice)).length;
      for (let time = 0; time < 2; time++) {
        const request = await signed(body, peer.keys.privateKey, peer.keyId);
        const response = await fetch(request.url, { method: 'POST', headers: request.headers, body });
        expect(response.status).toBe(202);
      }
      expect((await storedInbox(alice)).length).toBe(before + 1);
    });
  });
});
