/**
 * A Mastodon client's view of a real svc process with the IdP and ActivityPub on loopback, through the masto
 * library: its streaming client hears a status posted on svc and one that arrives from a federated peer (an
 * independent fedify server, test/activitypub/fedify-peer.ts); its REST client walks what Elk, Phanpy and
 * Tusky call at start-up, then a session: upload an image and post it, reply, favourite, boost, bookmark,
 * search, follow the peer's actor and unfollow it.
 */
import { signRequest } from '@fedify/fedify';
import { createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { useFedifyPeer, type FedifyPeer } from '../activitypub/fedify-peer.ts';
import { PUBLIC } from '../activitypub/signed.ts';
import { PASSWORD } from '../idp/support.ts';
import { OOB, outOfBandCode } from '../oauth/support.ts';
import { eventually } from '../support/eventually.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';

const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='), (char) => char.charCodeAt(0));

const fedifyPeer = useFedifyPeer();
let svc: RunningSvc;
let token: string;

/** An activity of the peer's actor POSTed to svc's shared inbox, signed as fedify signs it. */
async function deliver(peer: FedifyPeer, activity: Record<string, unknown>): Promise<void> {
  const body = JSON.stringify({ '@context': 'https://www.w3.org/ns/activitystreams', ...activity });
  const signed = await signRequest(new Request(`${svc.base}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json' }, body }), peer.keys.privateKey, new URL(peer.keyId));
  const response = await fetch(signed.url, { method: 'POST', headers: signed.headers, body });
  if (response.status !== 202) throw new Error(`${response.status} ${await response.text()}`);
}

/** Every event of a subscription, as it comes. */
function collect(subscription: mastodon.streaming.Subscription): mastodon.streaming.Event[] {
  const events: mastodon.streaming.Event[] = [];
  void (async () => {
    for await (const event of subscription) events.push(event);
  })().catch(() => undefined);
  return events;
}

const payloadId = (event: mastodon.streaming.Event) => (typeof event.payload === 'string' ? event.payload : (event.payload as { id: string }).id);
/** Whether `check` holds within `ms` (polled). */
async function within(ms: number, check: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 100) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

const seen = (events: mastodon.streaming.Event[], name: string, id: string) => events.some((event) => event.event === name && payloadId(event) === id);

beforeAll(async () => {
  svc = await startSvc(['--idp', '--activitypub', '--single-user', '--single-user-name', '', '--allow-private-fetch', '--quiet', '--ap-username', 'alice', '--ap-display-name', 'Alice Svc']);
  const owner = /owner token \(send it[^\n]*\n(\S+)/.exec(svc.output())![1]!;
  const registered = await fetch(`${svc.base}/idp/register`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${owner}` }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) });
  if (registered.status !== 201) throw new Error(`${registered.status} ${await registered.text()}`);
  const app = await createRestAPIClient({ url: svc.base }).v1.apps.create({ clientName: 'masto client', redirectUris: OOB, scopes: 'read write follow' });
  const over = { request: (path: string, init: RequestInit = {}) => fetch(svc.base + path, { ...init, redirect: 'manual' }) };
  const code = await outOfBandCode(over, { client_id: app.clientId!, client_secret: app.clientSecret! }, { scope: 'read write follow' });
  token = (await createOAuthAPIClient({ url: svc.base }).token.create({ grantType: 'authorization_code', clientId: app.clientId!, clientSecret: app.clientSecret!, redirectUri: OOB, code })).accessToken;
}, 120_000);

afterAll(async () => {
  await svc?.stop();
});

describe('masto against svc', { timeout: 90_000 }, () => {
  it("masto's streaming client receives a local and a federated status, their deletions, an edit and a notification", async () => {
    const peer = fedifyPeer();
    const rest = createRestAPIClient({ url: svc.base, accessToken: token });
    const instance = await rest.v2.instance.fetch();
    expect(instance.configuration.urls.streaming).toBe(svc.base.replace('http', 'ws'));
    expect((await fetch(`${svc.base}/api/v1/streaming/health`).then((response) => response.text()))).toBe('OK');

    // masto sends the token as the WebSocket protocol (Sec-WebSocket-Protocol), as Mastodon takes it.
    const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: token, implementation: WebSocket });
    const home = collect(streaming.user.subscribe());
    const local = collect(streaming.public.local.subscribe());
    const federated = collect(streaming.public.subscribe());
    const tagged = collect(streaming.hashtag.subscribe({ tag: 'Pods' }));
    try {
      // The subscriptions travel as messages: post until one status has reached every stream.
      let first: mastodon.v1.Status | undefined;
      for (let attempt = 0; attempt < 20 && !first; attempt++) {
        const status = await rest.v1.statuses.create({ status: `hello #pods ${attempt}` });
        if (await within(5000, () => [home, local, federated, tagged].every((events) => seen(events, 'update', status.id)))) first = status;
      }
      expect(first).toBeDefined();
      const update = home.find((event) => event.event === 'update' && payloadId(event) === first!.id)!;
      expect(update.stream).toEqual(['user']);
      expect(update.payload).toMatchObject({ id: first!.id, account: { username: 'alice', displayName: 'Alice Svc' }, tags: [{ name: 'pods' }] });
      expect(tagged.find((event) => payloadId(event) === first!.id)!.stream).toEqual(['hashtag', 'Pods']);

      // A post from the federated peer mentioning alice: on the home and federated streams, not the local one, and a notification.
      const note = `${peer.actorId}/statuses/streamed`;
      await deliver(peer, { id: `${note}/activity`, type: 'Create', actor: peer.actorId, to: PUBLIC, object: { id: note, type: 'Note', attributedTo: peer.actorId, to: PUBLIC, content: '<p>hi <a href="' + svc.base + '/profile/card">@alice</a></p>', published: new Date().toISOString(), tag: [{ type: 'Mention', href: `${svc.base}/profile/card`, name: '@alice' }] } });
      const remote = await eventually(async () => federated.find((event) => event.event === 'update' && (event.payload as mastodon.v1.Status).uri === note), 'the federated status');
      const remoteStatus = remote.payload as mastodon.v1.Status;
      expect(remoteStatus).toMatchObject({ content: expect.stringContaining('hi'), account: { acct: `carol@${new URL(peer.base).host}` } });
      await eventually(async () => (seen(home, 'update', remoteStatus.id) ? true : undefined), 'the federated status at home');
      const mention = await eventually(async () => home.find((event) => event.event === 'notification'), 'the mention');
      expect(mention.payload).toMatchObject({ type: 'mention', status: { id: remoteStatus.id } });
      expect(local.some((event) => event.event === 'update' && payloadId(event) === remoteStatus.id)).toBe(false);

      // Its author edits it, then deletes it; alice deletes her first post.
      await deliver(peer, { id: `${note}/update`, type: 'Update', actor: peer.actorId, to: PUBLIC, object: { id: note, type: 'Note', attributedTo: peer.actorId, to: PUBLIC, content: '<p>edited</p>', updated: new Date(Date.now() + 1000).toISOString() } });
      const edit = await eventually(async () => federated.find((event) => event.event === 'status.update'), 'the edit');
      expect(edit.payload).toMatchObject({ id: remoteStatus.id, content: '<p>edited</p>', editedAt: expect.any(String) });
      await deliver(peer, { id: `${note}/delete`, type: 'Delete', actor: peer.actorId, to: PUBLIC, object: note });
      await eventually(async () => (seen(federated, 'delete', remoteStatus.id) && seen(home, 'delete', remoteStatus.id) ? true : undefined), 'the federated deletion');
      await rest.v1.statuses.$select(first!.id).remove();
      await eventually(async () => (seen(local, 'delete', first!.id) && seen(home, 'delete', first!.id) ? true : undefined), 'the local deletion');
    } finally {
      streaming.close();
    }

    // The token in the query string works too; a bad token is refused at the handshake.
    const socket = new WebSocket(`${instance.configuration.urls.streaming}/api/v1/streaming?access_token=${token}&stream=public:local`);
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.close();
    const refused = new WebSocket(`${instance.configuration.urls.streaming}/api/v1/streaming?stream=user`, ['not-a-token']);
    await expect(new Promise((resolve, reject) => refused.once('open', resolve).once('error', reject))).rejects.toThrow(/401/);
  });

  it("a client's start-up calls, then a session: upload and post, reply, favourite, boost, bookmark, search, follow and unfollow", async () => {
    const peer = fedifyPeer();
    const masto = createRestAPIClient({ url: svc.base, accessToken: token });
    // What Elk, Phanpy and Tusky load as they start (see docs/mastodon-api.md): every call answers.
    const [v1, v2, me, preferences, emojis, markers, filters, lists, tags, announcements, notifications, home, policy, requests, trends] = await Promise.all([
      masto.v1.instance.fetch(),
      masto.v2.instance.fetch(),
      masto.v1.accounts.verifyCredentials(),
      masto.v1.preferences.fetch(),
      masto.v1.customEmojis.list(),
      masto.v1.markers.fetch({ timeline: ['home', 'notifications'] }),
      masto.v2.filters.list(),
      masto.v1.lists.list(),
      masto.v1.followedTags.list(),
      masto.v1.announcements.list(),
      masto.v1.notifications.list(),
      masto.v1.timelines.home.list(),
      masto.v2.notifications.policy.fetch(),
      masto.v1.followRequests.list(),
      masto.v1.trends.tags.list(),
    ]);
    expect(v1.urls.streamingApi).toMatch(/^ws:/);
    expect(v2.configuration.mediaAttachments.supportedMimeTypes).toContain('image/png');
    expect(me).toMatchObject({ username: 'alice', displayName: 'Alice Svc' });
    expect(preferences['posting:default:visibility']).toBe('public');
    expect([emojis, markers, filters, lists, tags, announcements, requests, trends]).toEqual([[], {}, [], [], [], [], [], []]);
    expect(Array.isArray(notifications) && Array.isArray(home)).toBe(true);
    expect(policy.forNotFollowing).toBe('accept');

    // Upload an image and post it; it is stored in the pod, public.
    const media = await masto.v2.media.create({ file: new Blob([PNG], { type: 'image/png' }), description: 'a dot' });
    expect(media).toMatchObject({ type: 'image', description: 'a dot', url: expect.stringMatching(new RegExp(`^${svc.base}/public/media/`)) });
    expect((await fetch(media.url!)).status).toBe(200);
    const posted = await masto.v1.statuses.create({ status: 'with a picture', mediaIds: [media.id] });
    expect(posted.mediaAttachments).toMatchObject([{ id: media.id, url: media.url, description: 'a dot' }]);

    // A reply in the thread, a marker where reading stopped.
    const reply = await masto.v1.statuses.create({ status: 'and a reply', inReplyToId: posted.id });
    const context = await masto.v1.statuses.$select(posted.id).context.fetch();
    expect(context.descendants.map((status) => status.id)).toEqual([reply.id]);
    expect((await masto.v1.markers.create({ home: { lastReadId: reply.id } })).home).toMatchObject({ lastReadId: reply.id, version: 1 });

    // A post by the peer's actor: alice favourites, boosts and bookmarks it; the Like and Announce go to the peer.
    const note = `${peer.actorId}/statuses/to-like`;
    await deliver(peer, { id: `${note}/activity`, type: 'Create', actor: peer.actorId, to: PUBLIC, object: { id: note, type: 'Note', attributedTo: peer.actorId, to: PUBLIC, content: '<p>like me</p>', published: new Date().toISOString() } });
    const theirs = await eventually(async () => (await masto.v1.timelines.public.list({ remote: true })).find((status) => status.uri === note), 'the peer\'s post');
    expect((await masto.v1.statuses.$select(theirs.id).favourite()).favourited).toBe(true);
    expect((await masto.v1.statuses.$select(theirs.id).reblog()).reblogged).toBe(true);
    expect((await masto.v1.statuses.$select(theirs.id).bookmark()).bookmarked).toBe(true);
    expect((await masto.v1.bookmarks.list()).map((status) => status.id)).toEqual([theirs.id]);
    expect((await masto.v1.favourites.list()).map((status) => status.id)).toEqual([theirs.id]);
    const boost = (await masto.v1.timelines.home.list()).find((status) => status.reblog?.id === theirs.id);
    expect(boost).toBeDefined();
    const sent = await eventually(async () => {
      const types = peer.receivedJson.filter((activity) => activity.object === note).map((activity) => activity.type);
      return types.includes('Like') && types.includes('Announce') ? types : undefined;
    }, 'the Like and the Announce at the peer');
    expect(sent).toEqual(expect.arrayContaining(['Like', 'Announce']));

    // Search finds the peer's actor by its URL (looked up there) and the post by its words; follow it.
    const found = await masto.v2.search.list({ q: peer.actorId, resolve: true });
    expect(found.accounts.map((account) => account.acct)).toEqual([`carol@${new URL(peer.base).host}`]);
    expect((await masto.v2.search.list({ q: 'like me', type: 'statuses' })).statuses.map((status) => status.id)).toEqual([theirs.id]);
    const carol = found.accounts[0]!;
    expect((await masto.v1.accounts.lookup({ acct: carol.acct })).id).toBe(carol.id);
    expect((await masto.v1.accounts.$select(carol.id).follow()).requested).toBe(true);
    const following = await eventually(async () => {
      const [relationship] = await masto.v1.accounts.relationships.fetch({ id: [carol.id] });
      return relationship?.following ? relationship : undefined;
    }, 'the peer to accept the follow');
    expect(following).toMatchObject({ id: carol.id, following: true, requested: false });
    const list = await masto.v1.lists.create({ title: 'friends' });
    await masto.v1.lists.$select(list.id).accounts.create({ accountIds: [carol.id] });
    expect((await masto.v1.lists.$select(list.id).accounts.list()).map((account) => account.id)).toEqual([carol.id]);
    expect((await masto.v1.accounts.$select(carol.id).unfollow()).following).toBe(false);

    // Taking back: unfavourite, unboost, unbookmark, delete.
    expect((await masto.v1.statuses.$select(theirs.id).unfavourite()).favourited).toBe(false);
    expect((await masto.v1.statuses.$select(theirs.id).unreblog()).reblogged).toBe(false);
    expect((await masto.v1.statuses.$select(theirs.id).unbookmark()).bookmarked).toBe(false);
    await eventually(async () => (peer.receivedJson.filter((activity) => activity.type === 'Undo').length >= 3 ? true : undefined), 'the Undos at the peer');
    await masto.v1.statuses.$select(reply.id).remove();
    expect((await masto.v1.statuses.$select(posted.id).context.fetch()).descendants).toEqual([]);
  });
});
