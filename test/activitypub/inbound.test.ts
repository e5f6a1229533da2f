/**
 * Who may change what arrives at the inboxes: activities signed by the actors of real fedify servers on
 * loopback (./fedify-peer.ts; svc fetches their keys), to a server in this process. Carol and mallory share
 * one server; `stranger` is an actor of another.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FOLLOWERS_CONTAINER, INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { socialApp, type SocialApp } from '../mastodon/support.ts';
import { BASE } from '../support/app.ts';
import { useFedifyPeer, type PeerActor } from './fedify-peer.ts';
import { deliverSigned, noteCreate } from './signed.ts';

const ACTOR = `${BASE}/profile/card`;

const peer = useFedifyPeer();
const elsewhere = useFedifyPeer();
let carol: PeerActor;
let mallory: PeerActor;
let stranger: PeerActor;

beforeAll(() => {
  carol = peer();
  mallory = peer().mallory;
  stranger = elsewhere().mallory;
});

const inboxApp = () => socialApp(nodeOutboundFetch({ allowPrivate: true }));

/** Every record of the pod's inbox container and of the followers, with its content. */
async function snapshot(app: SocialApp): Promise<Record<string, string>> {
  const records: Record<string, string> = {};
  for (const container of [INBOX_CONTAINER, FOLLOWERS_CONTAINER]) {
    for (const path of await recordPaths(app.storage, container)) records[path] = await new Response((await app.storage.get(path))!.body).text();
  }
  return records;
}

async function publicTimeline(app: SocialApp): Promise<{ content: string; edited_at: string | null }[]> {
  const response = await app.request('/api/v1/timelines/public?remote=true');
  expect(response.status).toBe(200);
  return response.json();
}

async function accepted(app: SocialApp, signer: PeerActor, activity: Record<string, unknown>): Promise<void> {
  const response = await deliverSigned(app, signer, activity);
  expect(response.status, JSON.stringify(activity)).toBe(202);
}

describe('who may change what arrives at the inbox', { timeout: 60_000 }, () => {
  it('a Delete, Update or Undo from another actor changes nothing; the author\'s own do', async () => {
    const app = await inboxApp();
    const posted = await app.request('/profile/card/outbox', { method: 'POST', headers: { 'content-type': 'application/activity+json', authorization: `Bearer ${app.ownerToken}` }, body: JSON.stringify({ type: 'Note', content: 'mine' }) });
    const ownNote = (await posted.json()).object.id as string;
    const create = noteCreate(carol, '1', '<p>by carol</p>');
    const noteId = (create.object as { id: string }).id;
    const like = { id: `${carol.actorId}/likes/1`, type: 'Like', actor: carol.actorId, object: ownNote };
    const follow = { id: `${carol.actorId}/follows/1`, type: 'Follow', actor: carol.actorId, object: ACTOR };
    for (const activity of [create, like, follow]) await accepted(app, carol, activity);
    expect(await publicTimeline(app)).toMatchObject([{ content: '<p>by carol</p>' }]);
    const before = await snapshot(app);
    expect(Object.keys(before)).toHaveLength(3);

    const forged = [
      { id: `${mallory.actorId}/deletes/1`, type: 'Delete', actor: mallory.actorId, object: noteId },
      { id: `${mallory.actorId}/deletes/2`, type: 'Delete', actor: mallory.actorId, object: { id: noteId, type: 'Tombstone' } },
      { id: `${mallory.actorId}/updates/1`, type: 'Update', actor: mallory.actorId, object: { ...(create.object as object), content: '<p>forged</p>', updated: '2026-02-01T00:00:00Z' } },
      { id: `${mallory.actorId}/updates/2`, type: 'Update', actor: mallory.actorId, object: { ...(create.object as object), attributedTo: mallory.actorId, content: '<p>forged</p>', updated: '2026-02-01T00:00:00Z' } },
      { id: `${mallory.actorId}/undos/1`, type: 'Undo', actor: mallory.actorId, object: like.id },
      { id: `${mallory.actorId}/undos/2`, type: 'Undo', actor: mallory.actorId, object: follow.id },
      { id: `${mallory.actorId}/undos/3`, type: 'Undo', actor: mallory.actorId, object: follow },
      { id: `${stranger.actorId}/deletes/1`, type: 'Delete', actor: stranger.actorId, object: noteId },
    ];
    for (const activity of forged) await accepted(app, activity.actor === stranger.actorId ? stranger : mallory, activity);
    expect(await snapshot(app)).toEqual(before);
    expect(await publicTimeline(app)).toMatchObject([{ content: '<p>by carol</p>', edited_at: null }]);
    expect(app.logs.filter((line) => line.startsWith('activitypub: refused'))).toHaveLength(6);

    await accepted(app, carol, { id: `${carol.actorId}/updates/1`, type: 'Update', actor: carol.actorId, object: { ...(create.object as object), content: '<p>edited</p>', updated: '2026-02-01T00:00:00Z' } });
    expect(await publicTimeline(app)).toMatchObject([{ content: '<p>edited</p>', edited_at: '2026-02-01T00:00:00.000Z' }]);
    // An older version, come late, does not replace the newer one.
    await accepted(app, carol, { id: `${carol.actorId}/updates/0`, type: 'Update', actor: carol.actorId, object: { ...(create.object as object), content: '<p>older</p>', updated: '2026-01-15T00:00:00Z' } });
    expect(await publicTimeline(app)).toMatchObject([{ content: '<p>edited</p>' }]);
    await accepted(app, carol, { id: `${carol.actorId}/undos/1`, type: 'Undo', actor: carol.actorId, object: like.id });
    await accepted(app, carol, { id: `${carol.actorId}/undos/2`, type: 'Undo', actor: carol.actorId, object: follow });
    expect(await recordPaths(app.storage, FOLLOWERS_CONTAINER)).toEqual([]);
    await accepted(app, carol, { id: `${carol.actorId}/deletes/1`, type: 'Delete', actor: carol.actorId, object: { id: noteId, type: 'Tombstone' } });
    expect(await publicTimeline(app)).toEqual([]);
    // What is left is carol's Delete, kept as a tombstone.
    const left = await snapshot(app);
    expect(Object.values(left).map((text) => JSON.parse(text).type)).toEqual(['Delete']);
  });

  it('a Delete of something held nowhere is kept only from its origin, and hides only its author\'s post', async () => {
    const app = await inboxApp();
    const early = noteCreate(carol, 'early', '<p>deleted before it came</p>');
    const kept = noteCreate(carol, 'kept', '<p>still here</p>');
    const deleteOf = (by: PeerActor, create: Record<string, unknown>, n: string) => ({ id: `${by.actorId}/deletes/${n}`, type: 'Delete', actor: by.actorId, object: (create.object as { id: string }).id });
    await accepted(app, stranger, deleteOf(stranger, kept, 'x'));
    expect(await snapshot(app)).toEqual({});
    await accepted(app, mallory, deleteOf(mallory, kept, 'm'));
    await accepted(app, carol, deleteOf(carol, early, 'c'));
    expect(Object.keys(await snapshot(app))).toHaveLength(2);
    await accepted(app, carol, early);
    await accepted(app, carol, kept);
    expect((await publicTimeline(app)).map((status) => status.content)).toEqual(['<p>still here</p>']);
  });

  it('keeps a Create only for an object of its actor\'s own: its author, on its origin', async () => {
    const app = await inboxApp();
    await accepted(app, mallory, { ...noteCreate(carol, 'a', '<p>as carol</p>'), id: `${mallory.actorId}/creates/1`, actor: mallory.actorId });
    await accepted(app, mallory, { ...noteCreate(mallory, 'b', '<p>elsewhere</p>'), object: { ...(noteCreate(mallory, 'b', '').object as object), id: `${stranger.actorId}/statuses/b` } });
    await accepted(app, mallory, { ...noteCreate(mallory, 'c', '<p>foreign activity id</p>'), id: `${stranger.actorId}/statuses/c/activity` });
    expect(await snapshot(app)).toEqual({});
    await accepted(app, mallory, noteCreate(mallory, 'd', '<p>her own</p>'));
    expect((await publicTimeline(app)).map((status) => status.content)).toEqual(['<p>her own</p>']);
  });
});
