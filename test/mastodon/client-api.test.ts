/**
 * The calls Mastodon clients make around the timelines, each through `app.fetch` on a single-user server with
 * ActivityPub: what they keep per account (markers, filters, lists, followed hashtags, bookmarks), what they
 * do with statuses (favourite, boost, threads, uploads), accounts and search, and the honest empty answers.
 */
import { describe, expect, it } from 'vitest';
import { INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { bearer } from '../oauth/support.ts';
import { BASE } from '../support/app.ts';
import { eventually } from '../support/eventually.ts';
import { socialApp, type SocialApp } from './support.ts';

const REMOTE = 'https://remote.example/users/carol';
const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='), (char) => char.charCodeAt(0));

const send = (token: string, method: string, body?: unknown) =>
  bearer(token, { method, ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });

/** A remote server that serves carol's actor and records what is delivered to her. */
function remoteServer() {
  const delivered: Record<string, unknown>[] = [];
  const fetch = async (url: string | URL, init?: RequestInit): Promise<Response> => {
    if (String(url) === REMOTE && init?.method !== 'POST') {
      return Response.json({ '@context': 'https://www.w3.org/ns/activitystreams', id: REMOTE, type: 'Person', preferredUsername: 'carol', name: 'Carol', inbox: `${REMOTE}/inbox`, url: 'https://remote.example/@carol' }, { headers: { 'content-type': 'application/activity+json' } });
    }
    if (init?.method === 'POST' && String(url) === `${REMOTE}/inbox`) {
      delivered.push(JSON.parse(String(init.body)));
      return new Response(null, { status: 202 });
    }
    throw new OutboundFetchRefused(String(url), 'not in this test');
  };
  return { fetch, delivered };
}

async function carolPosts(app: SocialApp, name: string, content: string, extra: Record<string, unknown> = {}): Promise<void> {
  const note = { id: `${REMOTE}/notes/${name}`, type: 'Note', attributedTo: REMOTE, content, published: '2026-01-03T00:00:00Z', ...extra };
  await app.storage.put(`${INBOX_CONTAINER}${name}.json`, JSON.stringify({ id: `${REMOTE}/creates/${name}`, type: 'Create', actor: REMOTE, object: note }), { contentType: 'application/ld+json' });
}

describe('the Mastodon client API', () => {
  it('answers the start-up calls: preferences, markers, and empty lists where the feature does not exist here', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    expect(await (await app.request('/api/v1/preferences', bearer(token))).json()).toMatchObject({ 'posting:default:visibility': 'public', 'reading:expand:spoilers': false });
    for (const path of ['/api/v1/custom_emojis', '/api/v1/announcements', '/api/v1/trends/tags', '/api/v1/trends/statuses', '/api/v1/trends/links', '/api/v2/suggestions', '/api/v1/follow_requests', '/api/v1/conversations', '/api/v1/blocks', '/api/v1/mutes', '/api/v1/domain_blocks', '/api/v1/scheduled_statuses', '/api/v1/notifications/requests', '/api/v1/followed_tags', '/api/v1/lists', '/api/v2/filters', '/api/v1/filters', '/api/v1/bookmarks', '/api/v1/favourites']) {
      const response = await app.request(path, bearer(token));
      expect(response.status, path).toBe(200);
      expect(await response.json(), path).toEqual([]);
    }
    expect((await app.request('/api/v1/announcements')).status).toBe(401);
    expect((await app.request('/api/v1/custom_emojis')).status).toBe(200);

    expect(await (await app.request('/api/v1/markers?timeline[]=home&timeline[]=notifications', bearer(token))).json()).toEqual({});
    const marked = await app.request('/api/v1/markers', bearer(token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'home[last_read_id]=001&notifications[last_read_id]=002' }));
    expect(await marked.json()).toMatchObject({ home: { last_read_id: '001', version: 1 }, notifications: { last_read_id: '002', version: 1 } });
    await app.request('/api/v1/markers', send(token, 'POST', { home: { last_read_id: '003' } }));
    expect(await (await app.request('/api/v1/markers?timeline[]=home', bearer(token))).json()).toEqual({ home: { last_read_id: '003', version: 2, updated_at: expect.any(String) } });
    expect((await app.request('/api/v1/markers', send(token, 'POST', {}))).status).toBe(422);
    expect((await app.request('/api/v1/markers', bearer(await app.tokenFor('read:accounts')))).status).toBe(403);
  });

  it('keeps filters and applies them: a warning on matching statuses, hidden ones left out', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    await carolPosts(app, 'spoiler', '<p>The ending of the Film</p>');
    await carolPosts(app, 'spam', '<p>buy now</p>');
    await carolPosts(app, 'fine', '<p>filmmaking tips</p>');
    const warn = await (await app.request('/api/v2/filters', send(token, 'POST', { title: 'films', context: ['home', 'public'], filter_action: 'warn', keywords_attributes: [{ keyword: 'film', whole_word: true }] }))).json();
    expect(warn).toMatchObject({ title: 'films', context: ['home', 'public'], filter_action: 'warn', keywords: [{ keyword: 'film', whole_word: true }] });
    const form = 'title=spam&context[]=home&filter_action=hide&keywords_attributes[0][keyword]=buy now&keywords_attributes[0][whole_word]=false';
    const hide = await (await app.request('/api/v2/filters', bearer(token, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }))).json();
    expect(hide).toMatchObject({ filter_action: 'hide', keywords: [{ keyword: 'buy now', whole_word: false }] });

    const home = await (await app.request('/api/v1/timelines/home', bearer(token))).json();
    expect(home.map((status: { content: string }) => status.content).sort()).toEqual(['<p>The ending of the Film</p>', '<p>filmmaking tips</p>']);
    const spoiler = home.find((status: { content: string }) => status.content.includes('ending'));
    expect(spoiler.filtered).toEqual([{ filter: expect.objectContaining({ id: warn.id }), keyword_matches: ['film'], status_matches: null }]);
    expect(home.find((status: { content: string }) => status.content.includes('tips')).filtered).toEqual([]);
    // Not in the context: the public timeline of an anonymous reader is unfiltered.
    expect(await (await app.request('/api/v1/timelines/public')).json()).toHaveLength(3);

    const changed = await (await app.request(`/api/v2/filters/${warn.id}`, send(token, 'PUT', { keywords_attributes: [{ id: warn.keywords[0].id, _destroy: true }, { keyword: 'ending' }] }))).json();
    expect(changed.keywords.map((keyword: { keyword: string }) => keyword.keyword)).toEqual(['ending']);
    expect(await (await app.request('/api/v1/filters', bearer(token))).json()).toHaveLength(2);
    expect((await app.request(`/api/v2/filters/${hide.id}`, bearer(token, { method: 'DELETE' }))).status).toBe(200);
    expect(await (await app.request('/api/v1/timelines/home', bearer(token))).json()).toHaveLength(3);
    for (const body of [{ title: '', context: ['home'] }, { title: 'x', context: ['nowhere'] }, { title: 'x', context: ['home'], filter_action: 'explode' }, { title: 'x', context: ['home'], keywords_attributes: [{ keyword: '' }] }]) {
      expect((await app.request('/api/v2/filters', send(token, 'POST', body))).status, JSON.stringify(body)).toBe(422);
    }
    expect((await app.request('/api/v2/filters/nope', bearer(token))).status).toBe(404);
  });

  it('favourites, boosts and bookmarks statuses: the Like and Announce go to the author, counts and flags follow', async () => {
    const remote = remoteServer();
    const app = await socialApp(remote.fetch);
    const token = await app.tokenFor('read write');
    await carolPosts(app, 'first', '<p>like this</p>');
    const [theirs] = await (await app.request('/api/v1/timelines/public?remote=true')).json();
    const mine = await (await app.request('/api/v1/statuses', send(token, 'POST', { status: 'mine' }))).json();

    expect(await (await app.request(`/api/v1/statuses/${theirs.id}/favourite`, send(token, 'POST'))).json()).toMatchObject({ id: theirs.id, favourited: true, favourites_count: 1 });
    const boosted = await (await app.request(`/api/v1/statuses/${theirs.id}/reblog`, send(token, 'POST'))).json();
    expect(boosted).toMatchObject({ id: theirs.id, reblogged: true, reblogs_count: 1 });
    expect(await (await app.request(`/api/v1/statuses/${theirs.id}/bookmark`, send(token, 'POST'))).json()).toMatchObject({ bookmarked: true });
    await eventually(async () => (remote.delivered.length >= 2 ? true : undefined), 'the Like and the Announce');
    expect(remote.delivered.map((activity) => [activity.type, activity.object])).toEqual([['Like', theirs.uri], ['Announce', theirs.uri]]);

    const home = await (await app.request('/api/v1/timelines/home', bearer(token))).json();
    expect(home[0]).toMatchObject({ reblog: { id: theirs.id }, account: { username: 'alice' } });
    expect(await (await app.request('/api/v1/timelines/public')).json()).toHaveLength(2);
    expect((await (await app.request(`/api/v1/statuses/${theirs.id}/favourited_by`)).json()).map((account: { username: string }) => account.username)).toEqual(['alice']);
    // An anonymous reader sees the counts, not the owner's own flags.
    expect(await (await app.request(`/api/v1/statuses/${theirs.id}`)).json()).toMatchObject({ favourited: false, favourites_count: 1, bookmarked: false });
    // A second favourite sends nothing more.
    await app.request(`/api/v1/statuses/${theirs.id}/favourite`, send(token, 'POST'));

    expect(await (await app.request(`/api/v1/statuses/${theirs.id}/unfavourite`, send(token, 'POST'))).json()).toMatchObject({ favourited: false, favourites_count: 0 });
    expect(await (await app.request(`/api/v1/statuses/${theirs.id}/unreblog`, send(token, 'POST'))).json()).toMatchObject({ reblogged: false });
    expect(await (await app.request(`/api/v1/statuses/${theirs.id}/unbookmark`, send(token, 'POST'))).json()).toMatchObject({ bookmarked: false });
    await eventually(async () => (remote.delivered.length >= 4 ? true : undefined), 'the Undos');
    expect(remote.delivered.slice(2).map((activity) => [activity.type, (activity.object as { type: string }).type])).toEqual([['Undo', 'Like'], ['Undo', 'Announce']]);
    expect(remote.delivered).toHaveLength(4);
    // The owner's own post: favourited here, delivered nowhere.
    expect(await (await app.request(`/api/v1/statuses/${mine.id}/favourite`, send(token, 'POST'))).json()).toMatchObject({ favourited: true });
    expect((await app.request('/api/v1/statuses/nope/favourite', send(token, 'POST'))).status).toBe(404);
    expect((await app.request(`/api/v1/statuses/${theirs.id}/favourite`, send(await app.tokenFor('read'), 'POST'))).status).toBe(403);
  });

  it('threads, replies to other servers, hashtags, uploads', async () => {
    const remote = remoteServer();
    const app = await socialApp(remote.fetch);
    const token = await app.tokenFor('read write');
    await carolPosts(app, 'root', '<p>a question</p>');
    const [root] = await (await app.request('/api/v1/timelines/public?remote=true')).json();
    const reply = await (await app.request('/api/v1/statuses', send(token, 'POST', { status: 'an answer about #Solid', in_reply_to_id: root.id, spoiler_text: 'long' }))).json();
    expect(reply).toMatchObject({ in_reply_to_id: root.id, in_reply_to_account_id: root.account.id, spoiler_text: 'long', sensitive: true, tags: [{ name: 'solid' }], mentions: [{ acct: 'carol@remote.example', url: REMOTE }] });
    expect(reply.content).toContain('class="mention hashtag"');
    await eventually(async () => (remote.delivered.some((activity) => activity.type === 'Create') ? true : undefined), 'the reply at its author');
    await carolPosts(app, 'again', '<p>thanks</p>', { inReplyTo: reply.uri, published: '2026-01-05T00:00:00Z' });
    const context = await (await app.request(`/api/v1/statuses/${reply.id}/context`)).json();
    expect(context.ancestors.map((status: { id: string }) => status.id)).toEqual([root.id]);
    expect(context.descendants.map((status: { content: string }) => status.content)).toEqual(['<p>thanks</p>']);
    expect((await (await app.request('/api/v1/timelines/tag/solid')).json()).map((status: { id: string }) => status.id)).toEqual([reply.id]);
    expect(await (await app.request('/api/v1/tags/Solid')).json()).toMatchObject({ name: 'solid', following: false });
    expect(await (await app.request('/api/v1/tags/solid/follow', send(token, 'POST'))).json()).toMatchObject({ following: true });
    expect((await (await app.request('/api/v1/followed_tags', bearer(token))).json()).map((tag: { name: string }) => tag.name)).toEqual(['solid']);

    const upload = new FormData();
    upload.set('file', new Blob([PNG], { type: 'image/png' }), 'dot.png');
    upload.set('description', 'a dot');
    const media = await (await app.request('/api/v2/media', bearer(token, { method: 'POST', body: upload }))).json();
    expect(media).toMatchObject({ type: 'image', description: 'a dot', url: expect.stringMatching(new RegExp(`^${BASE}/public/media/.+\\.png$`)) });
    const stored = await app.request(new URL(media.url).pathname);
    expect([stored.status, stored.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(await (await app.request(`/api/v1/media/${media.id}`, send(token, 'PUT', { description: 'a small dot' }))).json()).toMatchObject({ description: 'a small dot' });
    const withImage = await (await app.request('/api/v1/statuses', send(token, 'POST', { media_ids: [media.id] }))).json();
    expect(withImage.media_attachments).toMatchObject([{ id: media.id, url: media.url, description: 'a small dot' }]);
    expect((await (await app.request('/api/v1/timelines/public?only_media=true')).json()).map((status: { id: string }) => status.id)).toEqual([withImage.id]);
    // Used once, then it is the status's.
    expect((await app.request('/api/v1/statuses', send(token, 'POST', { status: 'again', media_ids: [media.id] }))).status).toBe(422);

    const fake = new FormData();
    fake.set('file', new Blob(['<script>alert(1)</script>'], { type: 'image/png' }), 'x.png');
    const refused = await app.request('/api/v2/media', bearer(token, { method: 'POST', body: fake }));
    expect(refused.status).toBe(422);
    expect((await refused.json()).error).toMatch(/File content type is invalid/);
    expect((await app.request('/api/v2/media', bearer(await app.tokenFor('read'), { method: 'POST', body: upload }))).status).toBe(403);
  });

  it('accounts: lookup, relationships, follow and unfollow, lists, search', async () => {
    const remote = remoteServer();
    const app = await socialApp(remote.fetch);
    const token = await app.tokenFor('read write follow');
    expect(await (await app.request('/api/v1/accounts/lookup?acct=alice')).json()).toMatchObject({ id: 'alice', username: 'alice' });
    expect(await (await app.request('/api/v1/accounts/lookup?acct=alice@pod.test')).json()).toMatchObject({ id: 'alice' });
    expect((await app.request('/api/v1/accounts/lookup?acct=nobody@remote.example')).status).toBe(404);

    const search = await (await app.request(`/api/v2/search?q=${encodeURIComponent(REMOTE)}&resolve=true`, bearer(token))).json();
    expect(search.accounts).toMatchObject([{ acct: 'carol@remote.example', display_name: 'Carol' }]);
    const carol = search.accounts[0];
    expect(await (await app.request(`/api/v1/accounts/${carol.id}`)).json()).toMatchObject({ id: carol.id, acct: 'carol@remote.example' });
    expect(await (await app.request('/api/v1/accounts/lookup?acct=carol@remote.example')).json()).toMatchObject({ id: carol.id });
    expect((await (await app.request('/api/v1/accounts/search?q=car', bearer(token))).json()).map((account: { id: string }) => account.id)).toEqual([carol.id]);

    const followed = await (await app.request(`/api/v1/accounts/${carol.id}/follow`, send(token, 'POST'))).json();
    expect(followed).toMatchObject({ id: carol.id, following: false, requested: true });
    await eventually(async () => (remote.delivered.some((activity) => activity.type === 'Follow') ? true : undefined), 'the Follow');
    // Until carol accepts, a list cannot hold her.
    const list = await (await app.request('/api/v1/lists', send(token, 'POST', { title: 'friends', replies_policy: 'none' }))).json();
    expect(list).toMatchObject({ title: 'friends', replies_policy: 'none', exclusive: false });
    expect((await app.request(`/api/v1/lists/${list.id}/accounts`, send(token, 'POST', { account_ids: [carol.id] }))).status).toBe(422);
    // An unknown id gets no answer, as Mastodon skips it.
    const relationships = await (await app.request(`/api/v1/accounts/relationships?id[]=${carol.id}&id[]=alice&id[]=unknown`, bearer(token))).json();
    expect(relationships.map((item: { id: string }) => item.id)).toEqual([carol.id, 'alice']);
    const [relationship] = relationships;
    expect(relationship).toMatchObject({ id: carol.id, following: false, requested: true, followed_by: false });
    expect(await (await app.request(`/api/v1/accounts/${carol.id}/unfollow`, send(token, 'POST'))).json()).toMatchObject({ following: false, requested: false });
    expect((await app.request('/api/v1/accounts/alice/follow', send(token, 'POST'))).status).toBe(403);

    expect(await (await app.request(`/api/v1/lists/${list.id}`, send(token, 'PUT', { title: 'close friends' }))).json()).toMatchObject({ title: 'close friends', replies_policy: 'none' });
    expect(await (await app.request(`/api/v1/lists/${list.id}/accounts`, bearer(token))).json()).toEqual([]);
    expect(await (await app.request(`/api/v1/timelines/list/${list.id}`, bearer(token))).json()).toEqual([]);
    expect((await app.request(`/api/v1/lists/${list.id}`, bearer(token, { method: 'DELETE' }))).status).toBe(200);
    expect((await app.request(`/api/v1/lists/${list.id}`, bearer(token))).status).toBe(404);
    expect((await app.request('/api/v1/lists', send(token, 'POST', { title: ' ' }))).status).toBe(422);

    await carolPosts(app, 'words', '<p>pods and posts</p>');
    const found = await (await app.request('/api/v2/search?q=pods&type=statuses')).json();
    expect(found.statuses.map((status: { content: string }) => status.content)).toEqual(['<p>pods and posts</p>']);
    expect((await (await app.request('/api/v2/search?q=alice')).json()).accounts.map((account: { id: string }) => account.id)).toEqual(['alice']);
    expect((await app.request(`/api/v2/search?q=x&resolve=true`)).status).toBe(401);
    expect((await (await app.request(`/api/v1/accounts/${carol.id}/statuses`)).json()).map((status: { content: string }) => status.content)).toEqual(['<p>pods and posts</p>']);
    expect(await (await app.request(`/api/v1/accounts/${carol.id}/followers`)).json()).toEqual([]);
  });
});
