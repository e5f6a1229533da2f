import { describe, expect, it } from 'vitest';
import { FOLLOWERS_CONTAINER, INBOX_CONTAINER, OUTBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { recordPaths } from '../../src/activitypub/records.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { bearer } from '../oauth/support.ts';
import { BASE, makeApp } from '../support/app.ts';
import { socialApp } from './support.ts';

const ACTOR = `${BASE}/profile/card`;
const REMOTE = 'https://remote.example/users/carol';

const post = (token: string, body: unknown) => bearer(token, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** The `Link` header's URL for `rel`, as a path. */
function linkOf(response: Response, rel: string): string | null {
  const match = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(response.headers.get('link') ?? '');
  return match ? match[1]!.slice(BASE.length) : null;
}

describe('Mastodon statuses, timelines and notifications on ActivityPub', () => {
  it('posts a status as a Create Note, reads it, pages the timelines by Link, and deletes it with a Delete', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    const ids: string[] = [];
    for (const text of ['first <post>', 'second', 'third\nline']) {
      const response = await app.request('/api/v1/statuses', post(token, { status: text }));
      expect(response.status).toBe(200);
      const status = await response.json();
      expect(status).toMatchObject({ visibility: 'public', sensitive: false, spoiler_text: '', media_attachments: [], mentions: [], in_reply_to_id: null, reblog: null, account: { id: 'alice', username: 'alice', acct: 'alice' } });
      expect(status.uri).toMatch(new RegExp(`^${ACTOR}/notes/`));
      expect(status.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      ids.push(status.id);
    }
    expect([...ids].sort()).toEqual(ids);
    expect((await (await app.request(`/api/v1/statuses/${ids[0]}`)).json()).content).toBe('<p>first &lt;post&gt;</p>');
    expect((await (await app.request(`/api/v1/statuses/${ids[2]}`)).json()).content).toBe('<p>third<br>line</p>');
    const outbox = await recordPaths(app.storage, OUTBOX_CONTAINER);
    expect(outbox).toHaveLength(3);

    const reply = await (await app.request('/api/v1/statuses', post(token, { status: 'a reply', in_reply_to_id: ids[0] }))).json();
    expect(reply).toMatchObject({ in_reply_to_id: ids[0], in_reply_to_account_id: 'alice', account: { statuses_count: 4 } });
    ids.push(reply.id);

    const first = await app.request('/api/v1/timelines/home?limit=3', bearer(token));
    expect(first.status).toBe(200);
    expect((await first.json()).map((status: { id: string }) => status.id)).toEqual([ids[3], ids[2], ids[1]]);
    const next = linkOf(first, 'next')!;
    expect(next).toBe(`/api/v1/timelines/home?limit=3&max_id=${ids[1]}`);
    const second = await app.request(next, bearer(token));
    expect((await second.json()).map((status: { id: string }) => status.id)).toEqual([ids[0]]);
    expect((await (await app.request(linkOf(second, 'prev')!, bearer(token))).json()).map((status: { id: string }) => status.id)).toEqual([ids[3], ids[2], ids[1]]);
    expect((await (await app.request(`/api/v1/timelines/home?min_id=${ids[0]}&limit=2`, bearer(token))).json()).map((status: { id: string }) => status.id)).toEqual([ids[2], ids[1]]);
    expect((await (await app.request(`/api/v1/timelines/home?since_id=${ids[1]}`, bearer(token))).json()).map((status: { id: string }) => status.id)).toEqual([ids[3], ids[2]]);
    const empty = await app.request(`/api/v1/timelines/home?max_id=${ids[0]}`, bearer(token));
    expect(await empty.json()).toEqual([]);
    expect(empty.headers.get('link')).toBeNull();

    expect((await (await app.request('/api/v1/timelines/public')).json())).toHaveLength(4);
    expect((await (await app.request('/api/v1/timelines/public?remote=true')).json())).toHaveLength(0);
    expect((await (await app.request('/api/v1/accounts/alice/statuses?limit=1')).json())[0].id).toBe(ids[3]);
    expect((await (await app.request('/api/v1/accounts/alice/statuses')).json())[0].account.statuses_count).toBe(4);

    const deleted = await app.request(`/api/v1/statuses/${ids[1]}`, bearer(token, { method: 'DELETE' }));
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ id: ids[1], text: '<p>second</p>' });
    expect((await app.request(`/api/v1/statuses/${ids[1]}`)).status).toBe(404);
    expect(await recordPaths(app.storage, OUTBOX_CONTAINER)).toHaveLength(3);
    expect((await app.request(`/api/v1/statuses/${ids[1]}`, bearer(token, { method: 'DELETE' }))).status).toBe(404);
  });

  it('delivers a posted status as Create and a deleted one as Delete to each follower\'s inbox', async () => {
    const delivered: Array<{ url: string; activity: any }> = [];
    const recording = async (url: string | URL, init?: RequestInit) => {
      if (init?.method !== 'POST') throw new OutboundFetchRefused(String(url), 'only deliveries in this test');
      delivered.push({ url: String(url), activity: JSON.parse(String(init.body)) });
      return new Response(null, { status: 202 });
    };
    const app = await socialApp(recording);
    await app.storage.put(`${FOLLOWERS_CONTAINER}carol.json`, JSON.stringify({ id: REMOTE, inbox: `${REMOTE}/inbox`, followId: `${REMOTE}/follows/1`, since: '2026-01-01T00:00:00.000Z' }), { contentType: 'application/json' });
    const token = await app.tokenFor('write');
    const status = await (await app.request('/api/v1/statuses', post(token, { status: 'to my followers' }))).json();
    expect((await app.request(`/api/v1/statuses/${status.id}`, bearer(token, { method: 'DELETE' }))).status).toBe(200);
    for (let attempt = 0; attempt < 400 && delivered.length < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(delivered.map(({ url, activity }) => [url, activity.type])).toEqual([[`${REMOTE}/inbox`, 'Create'], [`${REMOTE}/inbox`, 'Delete']]);
    expect(delivered[0]!.activity.object).toMatchObject({ id: status.uri, type: 'Note', content: '<p>to my followers</p>' });
    expect(delivered[1]!.activity.object).toMatchObject({ id: status.uri, type: 'Tombstone' });
  });

  it('lists every post, past the outbox\'s pages of 100, and the account counts them', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    for (let index = 0; index < 103; index++) expect((await app.request('/api/v1/statuses', post(token, { status: `post ${index}` }))).status).toBe(200);
    let path: string | null = '/api/v1/accounts/alice/statuses?limit=40';
    const contents: string[] = [];
    while (path) {
      const response: Response = await app.request(path);
      const page = await response.json();
      contents.push(...page.map((status: { content: string }) => status.content));
      path = page.length > 0 ? linkOf(response, 'next') : null;
    }
    expect(contents).toHaveLength(103);
    expect(contents.at(-1)).toBe('<p>post 0</p>');
    expect(await (await app.request('/api/v1/accounts/alice')).json()).toMatchObject({ statuses_count: 103, followers_count: 0, following_count: 0, last_status_at: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    expect((await (await app.request('/api/v1/accounts/verify_credentials', bearer(token))).json()).statuses_count).toBe(103);
  });

  it('answers unknown ids 404, missing scopes 403, no token 401, bad bodies 400 and 422, and stores nothing then', async () => {
    const app = await socialApp();
    const read = await app.tokenFor('read');
    const write = await app.tokenFor('write:statuses');
    const readStatuses = await app.tokenFor('read:statuses');
    for (const path of ['/api/v1/statuses/000000000000001-000000000000', '/api/v1/statuses/..', '/api/v1/accounts/bob/statuses', '/api/v1/accounts/bob/followers', '/api/v1/accounts/bob/following']) {
      const response = await app.request(path);
      expect(response.status, path).toBe(404);
      expect((await response.json()).error).toMatch(/^Record not found/);
    }
    expect((await app.request('/api/v1/statuses', post(write, { status: 'x', in_reply_to_id: 'nope' }))).status).toBe(404);
    expect((await app.request('/api/v1/statuses/nope', bearer(write, { method: 'DELETE' }))).status).toBe(404);

    const noScope = await app.request('/api/v1/statuses', post(read, { status: 'hello' }));
    expect(noScope.status).toBe(403);
    expect((await noScope.json()).error).toBe('This action is outside the authorized scopes');
    expect((await app.request('/api/v1/timelines/home', bearer(write))).status).toBe(403);
    expect((await app.request('/api/v1/notifications', bearer(readStatuses))).status).toBe(403);
    expect((await app.request('/api/v1/notifications', bearer(read))).status).toBe(200);
    expect((await app.request('/api/v1/timelines/home', bearer(readStatuses))).status).toBe(200);
    expect((await app.request('/api/v1/statuses', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"status":"x"}' })).status).toBe(401);

    const malformed = await app.request('/api/v1/statuses', bearer(write, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"status":' }));
    expect(malformed.status).toBe(400);
    for (const body of [{}, { status: '  ' }, { status: 42 }, { status: 'x'.repeat(501) }, { status: 'x', visibility: 'direct' }]) {
      const response = await app.request('/api/v1/statuses', post(write, body));
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect((await response.json()).error).toMatch(/^Validation failed: /);
    }
    expect(await recordPaths(app.storage, OUTBOX_CONTAINER)).toEqual([]);
    expect((await app.request('/api/v1/statuses', post(write, { status: 'é'.repeat(500) }))).status).toBe(200);
  });

  it('notifications: follows, replies and mentions, favourites and reblogs from the inbox', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    const mine = await (await app.request('/api/v1/statuses', post(token, { status: 'mine' }))).json();
    const store = (name: string, activity: unknown) => app.storage.put(`${INBOX_CONTAINER}${name}.json`, JSON.stringify(activity), { contentType: 'application/ld+json' });
    await app.storage.put(`${FOLLOWERS_CONTAINER}carol.json`, JSON.stringify({ id: REMOTE, inbox: `${REMOTE}/inbox`, followId: `${REMOTE}/follows/1`, since: '2026-01-01T00:00:00.000Z' }), { contentType: 'application/json' });
    await store('like', { id: `${REMOTE}/likes/1`, type: 'Like', actor: REMOTE, object: mine.uri });
    await store('boost', { id: `${REMOTE}/announces/1`, type: 'Announce', actor: REMOTE, object: mine.uri, published: '2026-01-02T00:00:00Z' });
    await store('reply', { id: `${REMOTE}/creates/1`, type: 'Create', actor: REMOTE, object: { id: `${REMOTE}/notes/1`, type: 'Note', attributedTo: REMOTE, content: '<p>hi</p>', inReplyTo: mine.uri, published: '2026-01-03T00:00:00Z' } });
    await store('other', { id: `${REMOTE}/creates/2`, type: 'Create', actor: REMOTE, object: { id: `${REMOTE}/notes/2`, type: 'Note', attributedTo: REMOTE, content: '<p>news</p>', published: '2026-01-04T00:00:00Z' } });
    await store('unrelated-like', { id: `${REMOTE}/likes/2`, type: 'Like', actor: REMOTE, object: 'https://elsewhere.example/notes/9' });

    const response = await app.request('/api/v1/notifications', bearer(token));
    expect(response.status).toBe(200);
    const notifications = await response.json();
    expect(notifications.map((item: { type: string }) => item.type).sort()).toEqual(['favourite', 'follow', 'mention', 'reblog']);
    const byType = Object.fromEntries(notifications.map((item: { type: string }) => [item.type, item]));
    // The remote actor cannot be fetched here: it is named from its URL, and the failed lookup is kept for a while.
    expect(byType.follow).toMatchObject({ account: { acct: 'carol@remote.example', username: 'carol', url: REMOTE }, status: null, created_at: '2026-01-01T00:00:00.000Z' });
    expect(await recordPaths(app.storage, '/.server/mastodon/actors/')).toHaveLength(1);
    expect(byType.favourite.status).toMatchObject({ id: mine.id, content: '<p>mine</p>' });
    expect(byType.reblog.status.id).toBe(mine.id);
    expect(byType.mention.status).toMatchObject({ content: '<p>hi</p>', in_reply_to_id: mine.id, account: { acct: 'carol@remote.example' } });
    expect((await (await app.request('/api/v1/notifications?types[]=follow', bearer(token))).json()).map((item: { type: string }) => item.type)).toEqual(['follow']);
    expect((await (await app.request('/api/v1/notifications?exclude_types[]=follow&limit=1', bearer(token))).json())).toHaveLength(1);

    const home = await (await app.request('/api/v1/timelines/home', bearer(token))).json();
    expect(home.map((status: { content: string }) => status.content)).toContain('<p>news</p>');
    await store('delete', { id: `${REMOTE}/deletes/2`, type: 'Delete', actor: REMOTE, object: `${REMOTE}/notes/2` });
    const after = await (await app.request('/api/v1/timelines/home', bearer(token))).json();
    expect(after.map((status: { content: string }) => status.content)).not.toContain('<p>news</p>');

    const followers = await app.request('/api/v1/accounts/alice/followers');
    expect((await followers.json()).map((account: { url: string }) => account.url)).toEqual([REMOTE]);
    expect(await (await app.request('/api/v1/accounts/alice/following')).json()).toEqual([]);
  });

  it('without --activitypub the statuses endpoints are 404 with a reason', async () => {
    const app = makeApp({ idp: true });
    const response = await app.request('/api/v1/timelines/public');
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatch(/--activitypub/);
  });
});
