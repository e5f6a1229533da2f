/**
 * The streaming API's upgrade answer and events in this process: where the token may come from, what is
 * refused, which stream gets which event, and the rules every socket endpoint shares (a socket that listens
 * to nothing says so). The real sockets, masto and a federated peer are in masto-client.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { INBOX_CONTAINER } from '../../src/activitypub/paths.ts';
import { MAX_UPGRADE_URL_BYTES, type SocketHandlers, type UpgradeAnswer } from '../../src/notifications/socket.ts';
import { bearer } from '../oauth/support.ts';
import { BASE, makeApp } from '../support/app.ts';
import { eventually } from '../support/eventually.ts';
import { offlinePlatform } from '../activitypub/offline.ts';
import { socialApp, type SocialApp } from './support.ts';

const REMOTE = 'https://remote.example/users/carol';

interface Client {
  sent: Array<{ stream: string[]; event: string; payload: string } & { error?: string; status?: number }>;
  handlers: SocketHandlers & { subscribed?(): boolean };
  closed: { code: number; reason: string } | null;
  send(message: unknown): void;
}

async function upgrade(app: SocialApp, query: string, headers: Record<string, string> = {}): Promise<UpgradeAnswer | null> {
  return app.app.upgradeWebSocket!(new Request(`${BASE}/api/v1/streaming${query}`, { headers: { upgrade: 'websocket', ...headers } }));
}

async function connect(app: SocialApp, query: string, headers: Record<string, string> = {}): Promise<Client> {
  const answer = await upgrade(app, query, headers);
  if (!answer || !('accept' in answer)) throw new Error(`refused: ${answer && 'refuse' in answer ? answer.refuse.status : 'no endpoint'}`);
  const client: Client = { sent: [], handlers: undefined as never, closed: null, send: (message) => client.handlers.message(JSON.stringify(message)) };
  client.handlers = answer.accept({
    send: (text) => client.sent.push(JSON.parse(text)),
    close: (code, reason) => {
      client.closed = { code, reason };
    },
  });
  return client;
}

const post = (app: SocialApp, token: string, status: string) => app.request('/api/v1/statuses', bearer(token, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ status }) })).then((response) => response.json());
const events = (client: Client, event: string) => client.sent.filter((message) => message.event === event);
const until = <T>(probe: () => T | undefined, what: string) => eventually(async () => probe(), what);

describe('the Mastodon streaming API', { timeout: 90_000 }, () => {
  it('takes the token from Authorization, ?access_token= or Sec-WebSocket-Protocol, refuses a bad one (401), and answers health', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read');
    for (const headers of [{ authorization: `Bearer ${token}` }, { 'sec-websocket-protocol': token }] as Record<string, string>[]) {
      const client = await connect(app, '?stream=user', headers);
      await until(() => (client.handlers.subscribed!() ? true : undefined), 'the subscription');
      expect(client.sent).toEqual([]);
    }
    expect(await connect(app, `?access_token=${token}&stream=user`)).toBeDefined();
    for (const [query, headers] of [['?access_token=nope', {}], ['', { 'sec-websocket-protocol': 'nope' }], ['', { authorization: 'Bearer nope' }]] as const) {
      const answer = await upgrade(app, query, headers);
      expect(answer && 'refuse' in answer && answer.refuse.status).toBe(401);
    }
    expect(await app.app.upgradeWebSocket!(new Request(`${BASE}/api/v1/streaming/user`))).toBeNull();
    const health = await app.request('/api/v1/streaming/health');
    expect([health.status, await health.text()]).toEqual([200, 'OK']);
    const plain = await app.request('/api/v1/streaming?stream=public');
    expect(plain.status).toBe(426);
  });

  it('refuses private streams without a token or with too narrow scopes; unknown streams and bad messages get an error', async () => {
    const app = await socialApp();
    const anonymous = await connect(app, '');
    expect(anonymous.handlers.subscribed!()).toBe(false);
    anonymous.send({ type: 'subscribe', stream: 'user' });
    anonymous.send({ type: 'subscribe', stream: 'nonsense' });
    anonymous.send({ type: 'subscribe', stream: 'hashtag' });
    anonymous.handlers.message('{');
    anonymous.handlers.message(null);
    anonymous.send({ type: 'dance', stream: 'public' });
    await until(() => (anonymous.sent.length === 6 ? true : undefined), 'six errors');
    // Bad messages are answered at once, subscriptions once checked: the order is not the messages'.
    expect(anonymous.sent.map((message) => [message.error, message.status]).sort()).toEqual([
      ['Missing access token', 401],
      ['No tag for stream provided', 400],
      ['Send text messages', 400],
      ['The message is not JSON', 400],
      ['Unknown message type (subscribe or unsubscribe)', 400],
      ['Unknown stream type', 400],
    ]);
    // Nothing subscribed: a silent socket like this one is closed by the shared idle rule.
    expect(anonymous.handlers.subscribed!()).toBe(false);
    anonymous.send({ type: 'subscribe', stream: 'public' });
    await until(() => (anonymous.handlers.subscribed!() ? true : undefined), 'public');
    anonymous.send({ type: 'unsubscribe', stream: 'public' });
    expect(anonymous.handlers.subscribed!()).toBe(false);

    const narrow = await connect(app, '', { authorization: `Bearer ${await app.tokenFor('read:accounts')}` });
    narrow.send({ type: 'subscribe', stream: 'user' });
    narrow.send({ type: 'subscribe', stream: 'user:notification' });
    await until(() => (narrow.sent.length === 2 ? true : undefined), 'two refusals');
    expect(narrow.sent.map((message) => message.status)).toEqual([401, 401]);
  });

  it('sends a post to user, public, public:local and its hashtag streams, a remote post to public:remote, a notification, an edit, and deletions', async () => {
    const app = await socialApp();
    const token = await app.tokenFor('read write');
    const owner = await connect(app, '?stream=user', { authorization: `Bearer ${token}` });
    const notificationsOnly = await connect(app, '?stream=user:notification', { authorization: `Bearer ${token}` });
    const visitor = await connect(app, '');
    for (const stream of ['public', 'public:local', 'public:remote', 'public:media']) visitor.send({ type: 'subscribe', stream });
    visitor.send({ type: 'subscribe', stream: 'hashtag', tag: 'Solid' });
    visitor.send({ type: 'subscribe', stream: 'hashtag:local', tag: 'other' });
    await until(() => (visitor.handlers.subscribed!() ? true : undefined), 'subscriptions');

    const mine = await post(app, token, 'about #solid');
    await until(() => (events(visitor, 'update').length === 3 ? true : undefined), 'the post on three public streams');
    expect(events(visitor, 'update').map((message) => message.stream)).toEqual([['public'], ['public:local'], ['hashtag', 'Solid']]);
    expect(JSON.parse(events(visitor, 'update')[0]!.payload)).toMatchObject({ id: mine.id, favourited: false, tags: [{ name: 'solid' }] });
    await until(() => (events(owner, 'update').length === 1 ? true : undefined), 'the post at home');
    expect(notificationsOnly.sent).toEqual([]);

    // A reply that came to the inbox, written there as the owner's Solid apps may (every write is announced).
    const note = { id: `${REMOTE}/notes/1`, type: 'Note', attributedTo: REMOTE, content: '<p>hello</p>', inReplyTo: mine.uri, published: '2026-01-03T00:00:00Z' };
    const created = await app.request(`${INBOX_CONTAINER}reply.json`, bearer(app.ownerToken, { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify({ id: `${REMOTE}/creates/1`, type: 'Create', actor: REMOTE, object: note }) }));
    expect(created.status).toBe(201);
    await until(() => (events(visitor, 'update').length === 5 ? true : undefined), 'the reply on public and public:remote');
    expect(events(visitor, 'update').slice(3).map((message) => message.stream)).toEqual([['public'], ['public:remote']]);
    const mention = await until(() => events(notificationsOnly, 'notification')[0], 'the reply as a notification');
    expect(JSON.parse(mention.payload)).toMatchObject({ type: 'mention', account: { acct: 'carol@remote.example' }, status: { in_reply_to_id: mine.id } });
    await until(() => (events(owner, 'notification').length === 1 && events(owner, 'update').length === 2 ? true : undefined), 'the reply and its notification at home');
    const replyId = JSON.parse(events(owner, 'update')[1]!.payload).id;

    const edited = await app.request(`${INBOX_CONTAINER}reply.json`, bearer(app.ownerToken, { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify({ id: `${REMOTE}/creates/1`, type: 'Create', actor: REMOTE, object: { ...note, content: '<p>hello again</p>', updated: '2026-01-04T00:00:00Z' } }) }));
    expect(edited.status).toBe(204);
    const change = await until(() => events(owner, 'status.update')[0], 'the edit');
    expect(JSON.parse(change.payload)).toMatchObject({ id: replyId, content: '<p>hello again</p>' });

    expect((await app.request(`${INBOX_CONTAINER}reply.json`, bearer(app.ownerToken, { method: 'DELETE' }))).status).toBe(204);
    await until(() => (events(owner, 'delete').some((message) => message.payload === replyId) ? true : undefined), 'the remote deletion');
    expect((await app.request(`/api/v1/statuses/${mine.id}`, bearer(token, { method: 'DELETE' }))).status).toBe(200);
    // A deletion goes to every stream that may have shown the post, as Mastodon sends it.
    await until(() => (events(visitor, 'delete').length === 12 && events(owner, 'delete').length === 2 ? true : undefined), 'the local deletion on every stream');
    expect(new Set(events(visitor, 'delete').map((message) => message.payload))).toEqual(new Set([mine.id, replyId]));
    expect(events(notificationsOnly, 'delete')).toEqual([]);
  });

  it('closes a socket whose token was revoked, at its next private event', async () => {
    let clock = Date.now();
    const app = await socialApp(undefined, {}, () => (clock += 1));
    const token = await app.tokenFor('read write');
    const owner = await connect(app, '?stream=user', { authorization: `Bearer ${token}` });
    await until(() => (owner.handlers.subscribed!() ? true : undefined), 'the subscription');
    expect((await app.request('/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: app.client.client_id, client_secret: app.client.client_secret }) })).status).toBe(200);
    clock += 120_000;
    await post(app, await app.tokenFor('write'), 'after the revocation');
    await until(() => owner.closed ?? undefined, 'the close');
    expect(owner.closed).toEqual({ code: 1008, reason: 'the access token was revoked or expired' });
    expect(events(owner, 'update')).toEqual([]);
  });

  it('remembers its streams and the hash of its token, never the token, and carries on from them where the runtime let it go (Workers hibernation)', async () => {
    let clock = Date.now();
    const app = await socialApp(undefined, {}, () => (clock += 1));
    const token = await app.tokenFor('read write');
    const remembered: unknown[] = [];
    const first = await upgrade(app, '?stream=user', { authorization: `Bearer ${token}` });
    if (!first || !('accept' in first)) throw new Error('refused');
    const before = first.accept({ send: () => undefined, close: () => undefined, remember: (state) => remembered.push(state) });
    before.message(JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: 'Edge' }));
    await until(() => (remembered.length === 2 ? true : undefined), 'both streams remembered');
    const state = JSON.parse(JSON.stringify(remembered.at(-1)));
    expect(JSON.stringify(state)).not.toContain(token);
    expect(state.streams).toEqual([{ name: 'user' }, { name: 'hashtag', parameter: 'Edge' }]);
    // The process that held it is gone; the runtime asks again with the upgrade's URL only (no headers).
    before.closed();
    const resume = async () => {
      const answer = await upgrade(app, '');
      if (!answer || !('accept' in answer) || !answer.resume) throw new Error('not resumable');
      const client: Client = { sent: [], handlers: undefined as never, closed: null, send: () => undefined };
      client.handlers = answer.resume({ send: (text) => client.sent.push(JSON.parse(text)), close: (code, reason) => (client.closed = { code, reason }) }, state);
      return client;
    };
    const resumed = await resume();
    const status = await post(app, token, 'carried on #edge');
    await until(() => (events(resumed, 'update').length === 2 ? true : undefined), 'the post on both streams');
    expect(events(resumed, 'update').map((message) => [message.stream, JSON.parse(message.payload).id])).toEqual([[['user'], status.id], [['hashtag', 'Edge'], status.id]]);
    resumed.handlers.closed();

    expect((await app.request('/oauth/revoke', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token, client_id: app.client.client_id, client_secret: app.client.client_secret }) })).status).toBe(200);
    const revoked = await resume();
    await until(() => revoked.closed ?? undefined, 'the close');
    expect(revoked.closed).toEqual({ code: 1008, reason: 'the access token was revoked or expired' });
  });

  it('shares the budget of every long-lived connection: past --max-sockets it refuses with 503 before looking at the token, and a closed socket gives its place back', async () => {
    const app = await socialApp(undefined, { maxSockets: 2 });
    const token = await app.tokenFor('read');
    const first = await connect(app, '?stream=public');
    await connect(app, `?access_token=${token}&stream=user`);
    const refused = await upgrade(app, '?access_token=nope');
    expect(refused && 'refuse' in refused && refused.refuse.status).toBe(503);
    expect(refused && 'refuse' in refused && (await refused.refuse.json()).type).toBe('urn:svc:problem:socket-capacity');
    first.handlers.closed();
    expect(await connect(app, '?stream=public')).toBeDefined();
  });

  it('refuses an upgrade URL over 8 KiB with 414 before it takes a place in the socket budget', async () => {
    const app = await socialApp(undefined, { maxSockets: 1 });
    for (let i = 0; i < 3; i += 1) {
      const refused = await upgrade(app, `?stream=public&pad=${'x'.repeat(MAX_UPGRADE_URL_BYTES)}`);
      expect(refused && 'refuse' in refused && refused.refuse.status).toBe(414);
      expect(refused && 'refuse' in refused && (await refused.refuse.json()).type).toBe('urn:svc:problem:upgrade-url-too-long');
    }
    expect(await connect(app, '?stream=public')).toBeDefined();
  });

  it('without ActivityPub there is no streaming endpoint, and the answer says it is off and how to turn it on', async () => {
    const WHY = 'Record not found: the streaming API carries statuses and notifications, which need ActivityPub: it is off on this server. Turn it on with --activitypub (SVC_ACTIVITYPUB=true), which also needs the pod at / (--single-user --single-user-name "")';
    const app = makeApp({ idp: true }, undefined, offlinePlatform);
    expect(app.app.upgradeWebSocket).toBeUndefined();
    const response = await app.request('/api/v1/streaming/health');
    expect(response.status).toBe(404);
    expect((await response.json()).error).toBe(WHY);
    // Node, Deno and Bun load ActivityPub only when it is on: without it they have no loader, and the answer is the same.
    for (const runtime of ['node', 'deno', 'bun']) {
      const elsewhere = await makeApp({ idp: true }, undefined, { runtime, activityPub: undefined }).request('/api/v1/streaming');
      expect((await elsewhere.json()).error).toBe(WHY);
    }
  });
});
