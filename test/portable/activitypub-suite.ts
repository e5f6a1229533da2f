/**
 * The portable suite's ActivityPub cases: a single-user server whose pod at `/` is a fediverse actor, and an
 * independent fedify server in the test process (test/activitypub/fedify-peer.ts) on loopback. Plain HTTP
 * and real signed activities only, so every runtime runs them unchanged. The owner's token comes from
 * `POST /.pods/owner-token` with the secret (`--single-user-secret`), the one way that works on Workers too.
 */
import { Follow, isActor, Note, type Create } from '@fedify/fedify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFedifyPeer, type FedifyPeer } from '../activitypub/fedify-peer.ts';
import { eventually } from '../support/eventually.ts';
import type { RunningTarget } from './suite.ts';

const AS = 'application/activity+json';
/** A fixed secret is fine for a server on loopback that lives for one test file. */
const OWNER_SECRET = 'portable-owner-secret-0123456789abcdef';

/** The options the ActivityPub cases start each runtime with. */
export const ACTIVITYPUB_OPTIONS: Readonly<Record<string, string>> = {
  SVC_QUIET: 'true',
  SVC_RATE_LIMIT: 'false',
  SVC_ACTIVITYPUB: 'true',
  SVC_SINGLE_USER: 'true',
  SVC_SINGLE_USER_NAME: '',
  SVC_SINGLE_USER_SECRET: OWNER_SECRET,
  SVC_AP_USERNAME: 'alice',
  // The fedify peer listens on loopback.
  SVC_ALLOW_PRIVATE_FETCH: 'true',
};

/** The ids of a collection's items, over all its pages. */
async function collectionIds(url: string): Promise<string[]> {
  const ids: string[] = [];
  let page: string | undefined = ((await (await fetch(url, { headers: { accept: AS } })).json()) as { first?: string }).first;
  while (page) {
    const body = (await (await fetch(page, { headers: { accept: AS } })).json()) as { orderedItems?: unknown; next?: string };
    for (const item of [body.orderedItems ?? []].flat()) ids.push(typeof item === 'string' ? item : (item as { id: string }).id);
    page = body.next;
  }
  return ids;
}

/** Registers the ActivityPub cases for one runtime; `start` launches it with the given options. */
export function describePortableActivityPub(runtime: string, start: (options: Readonly<Record<string, string>>) => Promise<RunningTarget>): void {
  describe(`portable ActivityPub cases on ${runtime}`, { timeout: 120_000 }, () => {
    let target: RunningTarget;
    let peer: FedifyPeer;
    let actor = '';
    let token = '';

    beforeAll(async () => {
      peer = await startFedifyPeer();
      target = await start(ACTIVITYPUB_OPTIONS);
      actor = `${target.base}/profile/card`;
      const answer = await fetch(`${target.base}/.pods/owner-token`, { method: 'POST', headers: { authorization: `Bearer ${OWNER_SECRET}` } });
      const body = await answer.text();
      if (answer.status !== 200) throw new Error(`owner token: ${answer.status} ${body}\n${target.output()}`);
      token = (JSON.parse(body) as { token: string }).token;
    }, 180_000);

    afterAll(async () => {
      await Promise.all([target?.stop(), peer?.close()]);
    });

    it('trades the owner secret for a token that writes to the pod, and refuses a wrong secret', async () => {
      const refused = await fetch(`${target.base}/.pods/owner-token`, { method: 'POST', headers: { authorization: `Bearer ${OWNER_SECRET}x` } });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      await refused.arrayBuffer();
      const put = await fetch(`${target.base}/private/owner.txt`, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body: 'mine' });
      expect(put.status).toBe(201);
      expect((await fetch(`${target.base}/private/owner.txt`)).status).toBe(401);
    });

    it('answers WebFinger with the actor, and the actor document with its key', async () => {
      const host = new URL(target.base).host;
      const jrd = (await (await fetch(`${target.base}/.well-known/webfinger?resource=acct:alice@${host}`)).json()) as { links: unknown[] };
      expect(jrd.links).toContainEqual({ rel: 'self', type: AS, href: actor });
      const person = await fetch(actor, { headers: { accept: AS } });
      expect(person.status).toBe(200);
      const document = (await person.json()) as { id: string; type: string; preferredUsername: string; inbox: string; publicKey: { id: string; owner: string; publicKeyPem: string } };
      expect(document).toMatchObject({ id: actor, type: 'Person', preferredUsername: 'alice', inbox: `${actor}/inbox` });
      expect(document.publicKey.owner).toBe(actor);
      expect(document.publicKey.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----/);
    });

    it('takes a signed Follow from a fedify server, delivers its Accept, then delivers a post to it', async () => {
      const ctx = peer.context();
      const svcActor = await ctx.lookupObject(actor);
      expect(isActor(svcActor)).toBe(true);
      const followId = new URL(`${peer.actorId}#follow-${runtime.replace(/\W/g, '-')}`);
      await ctx.sendActivity({ identifier: 'carol' }, svcActor as never, new Follow({ id: followId, actor: new URL(peer.actorId), object: new URL(actor) }));
      await eventually(async () => ((await collectionIds(`${actor}/followers`)).includes(peer.actorId) ? true : undefined), "carol among the actor's followers");
      await eventually(async () => peer.received.find((activity) => activity.constructor.name === 'Accept' && activity.objectId?.href === followId.href), 'the Accept at carol');

      const posted = await fetch(`${actor}/outbox`, { method: 'POST', headers: { 'content-type': AS, authorization: `Bearer ${token}` }, body: JSON.stringify({ type: 'Note', content: `Hello from ${runtime}` }) });
      expect(posted.status).toBe(201);
      const createId = posted.headers.get('location');
      const create = await eventually(async () => peer.received.find((activity) => activity.id?.href === createId), 'the Create at carol');
      const note = await (create as Create).getObject();
      expect(note).toBeInstanceOf(Note);
      expect(String((note as Note).content)).toBe(`Hello from ${runtime}`);
    });

    it('refuses an unsigned activity at the inbox (401), as fedify does', async () => {
      const unsigned = await fetch(`${actor}/inbox`, {
        method: 'POST',
        headers: { 'content-type': AS },
        body: JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', id: `${peer.actorId}/unsigned`, type: 'Follow', actor: peer.actorId, object: actor }),
      });
      expect(unsigned.status).toBe(401);
      await unsigned.arrayBuffer();
    });
  });
}
