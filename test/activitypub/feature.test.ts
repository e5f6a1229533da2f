import { describe, expect, it } from 'vitest';
import { INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { SVC_VERSION } from '../../src/http/software.ts';
import { makeApp } from '../support/app.ts';
import { noOutbound, offlinePlatform as platform, storageWithActorKeys } from './offline.ts';
import { actorSchema, jrdSchema, nodeInfo21Schema, nodeInfoLinksSchema, schemaErrors } from './schemas.ts';

const AS = 'application/activity+json';
const NOSTR = 'a'.repeat(64);

async function federatedApp(flags: Record<string, unknown> = {}, fetch: typeof noOutbound = noOutbound) {
  const storage = await storageWithActorKeys();
  const test = makeApp({ activitypub: true, singleUser: true, singleUserName: '', apDisplayName: 'Alice', apSummary: 'Pods and posts', ...flags }, storage, { ...platform, fetch });
  const { token } = await test.app.singleUserPod!();
  return { ...test, token: token! };
}

describe('--activitypub', () => {
  it('stops its delivery queue when the app closes', async () => {
    const { app, logs } = await federatedApp();
    expect(logs).not.toContain('activitypub: delivery queue stopped');
    await app.close();
    expect(logs).toContain('activitypub: delivery queue stopped');
  });

  it('needs the pod at / (its WebID is the actor)', () => {
    expect(() => makeApp({ activitypub: true }, undefined, platform)).toThrow(/--single-user --single-user-name ""/);
    expect(() => makeApp({ activitypub: true, singleUser: true }, undefined, platform)).toThrow(/--single-user-name/);
  });

  it('is refused on a runtime without the outbound fetch or fedify (Workers)', () => {
    expect(() => makeApp({ activitypub: true, singleUser: true, singleUserName: '' }, undefined, { fetch: noOutbound })).toThrow(/not available on the test runtime/);
    expect(() => makeApp({ activitypub: true, singleUser: true, singleUserName: '' }, undefined, { activityPub: platform.activityPub })).toThrow(/not available on the test runtime/);
  });

  it('answers /profile/card as an ActivityStreams Person to AS clients, and as the Solid profile to others', async () => {
    const { request } = await federatedApp({ apNostrPubkey: NOSTR });
    for (const accept of [AS, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"']) {
      const response = await request('/profile/card', { headers: { accept } });
      expect(response.status).toBe(200);
      const actor = (await response.json()) as Record<string, any>;
      expect(schemaErrors(actorSchema, actor)).toEqual([]);
      expect(actor).toMatchObject({
        id: 'http://pod.test/profile/card',
        type: 'Person',
        preferredUsername: 'me',
        name: 'Alice',
        summary: 'Pods and posts',
        inbox: 'http://pod.test/profile/card/inbox',
        outbox: 'http://pod.test/profile/card/outbox',
        followers: 'http://pod.test/profile/card/followers',
        following: 'http://pod.test/profile/card/following',
        endpoints: { sharedInbox: 'http://pod.test/inbox' },
        alsoKnownAs: `did:nostr:${NOSTR}`,
      });
      expect(actor.publicKey.owner).toBe('http://pod.test/profile/card');
    }
    const solid = await request('/profile/card', { headers: { accept: 'application/ld+json' } });
    expect(await solid.text()).toContain('foaf');
  });

  it('keeps the same key pair across restarts (stored in the data directory)', async () => {
    const first = makeApp({ activitypub: true, singleUser: true, singleUserName: '' }, undefined, platform);
    const keyOf = async (request: typeof first.request) => ((await (await request('/profile/card', { headers: { accept: AS } })).json()) as any).publicKey.publicKeyPem;
    const again = makeApp({ activitypub: true, singleUser: true, singleUserName: '' }, first.storage, platform);
    expect(await keyOf(again.request)).toBe(await keyOf(first.request));
  });

  it('serves NodeInfo 2.1 and the WebFinger self link', async () => {
    const { request } = await federatedApp();
    const links = (await (await request('/.well-known/nodeinfo')).json()) as { links: { href: string }[] };
    expect(schemaErrors(nodeInfoLinksSchema, links)).toEqual([]);
    expect(links.links[0]!.href).toBe('http://pod.test/.well-known/nodeinfo/2.1');
    const nodeInfo = (await (await request('/.well-known/nodeinfo/2.1')).json()) as Record<string, any>;
    expect(schemaErrors(nodeInfo21Schema, nodeInfo)).toEqual([]);
    expect(nodeInfo).toMatchObject({ software: { name: 'svc', version: SVC_VERSION }, protocols: ['activitypub'], openRegistrations: false });
    const jrd = (await (await request('/.well-known/webfinger?resource=acct:me@pod.test')).json()) as Record<string, any>;
    expect(schemaErrors(jrdSchema, jrd)).toEqual([]);
    expect(jrd.links).toContainEqual({ rel: 'self', type: AS, href: 'http://pod.test/profile/card' });
  });

  it('refuses unsigned activities with 401 problem+json and stores nothing', async () => {
    const { request, storage } = await federatedApp();
    const create = { '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://remote.example/a/1', type: 'Create', actor: 'https://remote.example/users/x', object: { type: 'Note', content: 'hi' } };
    for (const path of ['/inbox', '/profile/card/inbox']) {
      const response = await request(path, { method: 'POST', headers: { 'content-type': AS }, body: JSON.stringify(create) });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
    expect(await recordPaths(storage, INBOX_CONTAINER)).toEqual([]);
  });

  it('lets only the owner post to the outbox; a Note becomes a Create in the paged outbox', async () => {
    const { request, token } = await federatedApp();
    const note = JSON.stringify({ type: 'Note', content: 'Hello, fediverse' });
    expect((await request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': AS }, body: note })).status).toBe(401);
    const posted = await request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${token}` }, body: note });
    expect(posted.status).toBe(201);
    const location = posted.headers.get('location')!;
    expect(location).toMatch(/^http:\/\/pod\.test\/profile\/card\/activities\//);
    const activity = (await (await request(new URL(location).pathname)).json()) as Record<string, any>;
    expect(activity).toMatchObject({ type: 'Create', actor: 'http://pod.test/profile/card', object: { type: 'Note', content: 'Hello, fediverse' } });
    const outbox = (await (await request('/profile/card/outbox')).json()) as Record<string, any>;
    expect(outbox).toMatchObject({ type: 'OrderedCollection', totalItems: 1, first: 'http://pod.test/profile/card/outbox?cursor=0' });
    const page = (await (await request('/profile/card/outbox?cursor=0', { headers: { accept: AS } })).json()) as Record<string, any>;
    expect(page.type).toBe('OrderedCollectionPage');
    expect(page.orderedItems.id ?? page.orderedItems[0].id).toBe(location);
    const bad = await request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${token}` }, body: '{"type":"Note"}' });
    expect(bad.status).toBe(400);
  });

  it('follows a handle: WebFinger (https, through the outbound fetch) finds the actor, the Follow goes to its inbox', async () => {
    const bob = 'https://remote.example/users/bob';
    const delivered: { url: string; body: any }[] = [];
    const remote = async (url: string | URL, init?: RequestInit) => {
      const target = String(url);
      if (target === 'https://remote.example/.well-known/webfinger?resource=acct%3Abob%40remote.example') {
        return Response.json({ subject: 'acct:bob@remote.example', links: [{ rel: 'self', type: AS, href: bob }] });
      }
      if (target === bob) {
        return Response.json({ '@context': 'https://www.w3.org/ns/activitystreams', id: bob, type: 'Person', preferredUsername: 'bob', inbox: `${bob}/inbox` });
      }
      if (target === `${bob}/inbox` && init?.method === 'POST') {
        delivered.push({ url: target, body: JSON.parse(String(init.body)) });
        return new Response(null, { status: 202 });
      }
      return new Response(null, { status: 404 });
    };
    const { request, token } = await federatedApp({}, remote as typeof noOutbound);
    const follow = await request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${token}` }, body: JSON.stringify({ type: 'Follow', object: '@bob@remote.example' }) });
    expect(follow.status).toBe(201);
    for (let attempt = 0; attempt < 200 && delivered.length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 25));
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.body).toMatchObject({ type: 'Follow', actor: 'http://pod.test/profile/card', object: bob });
    const unknown = await request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${token}` }, body: JSON.stringify({ type: 'Follow', object: '@nobody@remote.example' }) });
    expect(unknown.status).toBe(400);
  });
});
