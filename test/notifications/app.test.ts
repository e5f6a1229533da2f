import { describe, expect, it, vi } from 'vitest';
import type { App } from '../../src/app.ts';
import type { UpgradeAnswer } from '../../src/notifications/socket.ts';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { READ_ANSWER_MAX_AGE_MS } from '../../src/notifications/read-check.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { ACL_MAX_AGE_MS } from '../../src/wac/acl-cache.ts';
import { BASE, makeApp } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from '../wac/pods.ts';
import { FakeSocket, WAIT_MS } from './support.ts';

const STORAGE_DESCRIPTION = 'http://www.w3.org/ns/solid/terms#storageDescription';
const CHANNEL_TYPE = 'http://www.w3.org/ns/solid/notifications#WebSocketChannel2023';

async function connect(app: App, url: string, headers: HeadersInit = {}): Promise<FakeSocket> {
  const answer = (await app.upgradeWebSocket!(new Request(url, { headers }))) as UpgradeAnswer;
  if (!answer || 'refuse' in answer) throw new Error(`refused: ${answer && (await answer.refuse.text())}`);
  const socket = new FakeSocket();
  socket.handlers = answer.accept(socket);
  return socket;
}

const subscription = (topic: string, type = CHANNEL_TYPE): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/ld+json' },
  body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type, topic }),
});

describe('with --notifications off', () => {
  it('adds no headers, no routes and no upgrade handler', async () => {
    const { app, request } = makeApp({ public: true });
    expect(app.upgradeWebSocket).toBeUndefined();
    const response = await request('/');
    expect(response.headers.get('updates-via')).toBeNull();
    expect(response.headers.get('link')).not.toContain(STORAGE_DESCRIPTION);
  });
});

describe('routing cost', () => {
  it('keeps every request of the server on Hono’s RegExpRouter with all channel routes registered', async () => {
    // A `:param` route beside static siblings makes Hono route every request with its slower trie router.
    const { SmartRouter } = await import('hono/router/smart-router');
    const match = vi.spyOn(SmartRouter.prototype, 'match');
    const { app } = makeApp({ notifications: true, public: true }, undefined, { fetch: nodeOutboundFetch({ allowPrivate: false }) });
    await app.fetch(new Request(`${BASE}/doc`));
    const routers = match.mock.contexts.map((router) => (router as unknown as { activeRouter: { name: string } }).activeRouter.name);
    match.mockRestore();
    expect(new Set(routers)).toEqual(new Set(['RegExpRouter']));
  });
});

describe('discovery', () => {
  it('puts Updates-Via and the storage description link on resource and container answers', async () => {
    const { request } = makeApp({ public: true, notifications: true });
    const put = await request('/a/b', putText());
    for (const response of [put, await request('/a/b'), await request('/a/', { method: 'HEAD' }), await request('/a/b', { method: 'OPTIONS' })]) {
      expect(response.headers.get('updates-via')).toBe('ws://pod.test/.notifications');
      expect(response.headers.get('link')).toContain(`<${BASE}/.well-known/solid>; rel="${STORAGE_DESCRIPTION}"`);
    }
  });

  it('follows the request scheme and host', async () => {
    const { app } = makeApp({ public: true, notifications: true });
    const response = await app.fetch(new Request('https://other.example:8443/'));
    expect(response.headers.get('updates-via')).toBe('wss://other.example:8443/.notifications');
  });

  it('describes the storage with its WebSocketChannel2023 subscription service, in JSON-LD or Turtle', async () => {
    const { request } = makeApp({ public: true, notifications: true });
    const json = await request('/.well-known/solid');
    expect(json.headers.get('content-type')).toBe('application/ld+json');
    const description = await json.json();
    expect(description['notify:subscription']).toMatchObject({
      '@id': `${BASE}/.notifications/WebSocketChannel2023/`,
      'notify:channelType': { '@id': CHANNEL_TYPE },
    });
    const turtle = await request('/.well-known/solid', { headers: { accept: 'text/turtle' } });
    expect(await turtle.text()).toContain('notify:channelType notify:WebSocketChannel2023');
    expect((await request('/.notifications/WebSocketChannel2023/')).status).toBe(200);
  });

  it('answers a plain HTTP request to the WebSocket endpoint with 426', async () => {
    const { request } = makeApp({ public: true, notifications: true });
    const response = await request('/.notifications');
    expect(response.status).toBe(426);
    expect(response.headers.get('upgrade')).toBe('websocket');
  });

  it('refuses upgrades elsewhere and to unknown channels', async () => {
    const { app } = makeApp({ public: true, notifications: true });
    expect(await app.upgradeWebSocket!(new Request(`${BASE}/somewhere`))).toBeNull();
    const answer = await app.upgradeWebSocket!(new Request(`${BASE}/.notifications/WebSocketChannel2023/?auth=nope`));
    expect(answer && 'refuse' in answer && answer.refuse.status).toBe(404);
  });
});

describe('the subscription service', () => {
  it('creates a channel whose receiveFrom delivers Activity Streams notifications', async () => {
    const { app, request } = makeApp({ public: true, notifications: true });
    const response = await request('/.notifications/WebSocketChannel2023/', subscription(`${BASE}/doc`, 'WebSocketChannel2023'));
    expect(response.status).toBe(200);
    const channel = await response.json();
    expect(channel).toMatchObject({ type: CHANNEL_TYPE, topic: `${BASE}/doc` });
    expect(channel.receiveFrom).toMatch(/^ws:\/\/pod\.test\/\.notifications\/WebSocketChannel2023\/\?auth=[\w-]{43}$/);
    const socket = await connect(app, channel.receiveFrom.replace(/^ws:/, 'http:'));
    const put = await request('/doc', putText('one'));
    const notification = JSON.parse(await socket.waitFor((line) => line.includes('"Create"')));
    expect(notification).toMatchObject({ type: 'Create', object: `${BASE}/doc`, state: put.headers.get('etag') });
    expect(Date.parse(notification.published)).not.toBeNaN();
  });

  it.each([
    ['a body that is not JSON-LD', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{}' }, 415],
    ['broken JSON', { method: 'POST', headers: { 'content-type': 'application/ld+json' }, body: '{' }, 400],
    ['another channel type', subscription(`${BASE}/doc`, 'WebhookChannel2023'), 422],
    ['a topic on another server', subscription('http://elsewhere.example/doc'), 422],
    ['no topic', subscription(''), 422],
  ])('refuses %s with %i', async (_what, init, status) => {
    const { request } = makeApp({ public: true, notifications: true });
    expect((await request('/.notifications/WebSocketChannel2023/', init as RequestInit)).status).toBe(status);
  });

  it('closes a channel socket when the channel reaches its endAt, with no event needed', async () => {
    const { app, request } = makeApp({ public: true, notifications: true });
    const endAt = new Date(Date.now() + 300).toISOString();
    const init = subscription(`${BASE}/doc`);
    const body = { ...JSON.parse(init.body as string), endAt };
    const response = await request('/.notifications/WebSocketChannel2023/', { ...init, body: JSON.stringify(body) });
    const channel = await response.json();
    expect(channel.endAt).toBe(endAt);
    const socket = await connect(app, channel.receiveFrom.replace(/^ws:/, 'http:'));
    await vi.waitFor(() => expect(socket.closedWith).toEqual({ code: 1000, reason: 'channel ended' }), { timeout: WAIT_MS });
    const again = await app.upgradeWebSocket!(new Request(channel.receiveFrom.replace(/^ws:/, 'http:')));
    expect(again && 'refuse' in again && again.refuse.status).toBe(404);
  });

  it('needs Read on the topic', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const service = '/.notifications/WebSocketChannel2023/';
    expect((await world.as(null, service, subscription(`${BASE}/alice/private`))).status).toBe(401);
    expect((await world.as('alice', service, subscription(`${BASE}/alice/private`))).status).toBe(200);
  });
});

describe('access that ends', () => {
  const bob = `${BASE}/bob/#me`;
  const sharing = (reader: string | null) =>
    putTurtleAcl(ownerRule('../#me') + (reader ? `<#reader> a acl:Authorization; acl:agent <${reader}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n` : ''));

  it('closes a WebSocketChannel2023 socket once its subscriber may no longer read the topic, before telling it anything new', async () => {
    const world = await podWorld(['alice', 'bob'], { notifications: true });
    expect((await world.as('alice', '/alice/shared/.acl', sharing(bob))).status).toBe(201);
    const response = await world.as('bob', '/.notifications/WebSocketChannel2023/', subscription(`${BASE}/alice/shared/`));
    expect(response.status).toBe(200);
    const { receiveFrom } = await response.json();
    const socket = await connect(world.app, receiveFrom.replace(/^ws:/, 'http:'));
    expect((await world.as('alice', '/alice/shared/first', putText())).status).toBe(201);
    await socket.waitFor((line) => line.includes(`${BASE}/alice/shared/first`));

    expect((await world.as('alice', '/alice/shared/.acl', sharing(null))).status).toBe(204);
    expect((await world.as('alice', '/alice/shared/second', putText())).status).toBe(201);
    await vi.waitFor(() => expect(socket.closedWith).toEqual({ code: 1008, reason: 'read access revoked' }), { timeout: WAIT_MS });
    expect(socket.sent.filter((line) => line.includes('second'))).toEqual([]);
    // The channel is gone: its receiveFrom URL takes no new socket.
    const again = await world.app.upgradeWebSocket!(new Request(receiveFrom.replace(/^ws:/, 'http:')));
    expect(again && 'refuse' in again && again.refuse.status).toBe(404);
  });

  it('ends a subscription within the ACL cache bound and a second when the ACL changes outside svc (on disk)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const storage = new MemoryDriver();
      const world = await podWorld(['alice', 'bob'], { notifications: true }, {}, storage);
      const start = Date.now();
      expect((await world.as('alice', '/alice/shared/.acl', sharing(bob))).status).toBe(201);
      const response = await world.as('bob', '/.notifications/WebSocketChannel2023/', subscription(`${BASE}/alice/shared/`));
      const socket = await connect(world.app, (await response.json()).receiveFrom.replace(/^ws:/, 'http:'));
      // Bob's Read is checked for this delivery from the ACL read at the start.
      vi.setSystemTime(start + ACL_MAX_AGE_MS - 500);
      expect((await world.as('alice', '/alice/shared/first', putText())).status).toBe(201);
      await socket.waitFor((line) => line.includes(`${BASE}/alice/shared/first`));

      await storage.put('/alice/shared/.acl', sharing(null).body as string, { contentType: 'text/turtle' });
      vi.setSystemTime(start + ACL_MAX_AGE_MS + READ_ANSWER_MAX_AGE_MS + 100);
      expect((await world.as('alice', '/alice/shared/second', putText())).status).toBe(201);
      await vi.waitFor(() => expect(socket.closedWith).toEqual({ code: 1008, reason: 'read access revoked' }), { timeout: WAIT_MS });
      expect(socket.sent.filter((line) => line.includes('second'))).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('drops a solid-0.1 subscription (--notifications-auth) once its caller may no longer read it', async () => {
    const world = await podWorld(['alice', 'bob'], { notifications: true, notificationsAuth: true });
    expect((await world.as('alice', '/alice/shared/.acl', sharing(bob))).status).toBe(201);
    const socket = await connect(world.app, `${BASE}/.notifications`, { authorization: `Bearer ${world.tokens.bob}` });
    socket.handlers!.message(`sub ${BASE}/alice/shared/`);
    await socket.waitFor((line) => line === `ack ${BASE}/alice/shared/`);
    expect((await world.as('alice', '/alice/shared/first', putText())).status).toBe(201);
    await socket.waitFor((line) => line === `pub ${BASE}/alice/shared/`);

    expect((await world.as('alice', '/alice/shared/.acl', sharing(null))).status).toBe(204);
    expect((await world.as('alice', '/alice/shared/second', putText())).status).toBe(201);
    await socket.waitFor((line) => line === `err ${BASE}/alice/shared/ forbidden`);
    expect(socket.sent.filter((line) => line.startsWith('pub'))).toEqual([`pub ${BASE}/alice/shared/`]);
  });
});

describe('publishing', () => {
  it('publishes nothing for refused or failed writes', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const socket = await connect(world.app, `${BASE}/.notifications`);
    for (const uri of ['/alice/x', '/alice/', '/alice/y']) socket.handlers!.message(`sub ${BASE}${uri}`);
    expect((await world.as(null, '/alice/x', putText())).status).toBe(401);
    expect((await world.as('alice', '/alice/x', { ...putText(), headers: { 'content-type': 'text/plain', 'if-match': '"nope"' } })).status).toBe(412);
    expect((await world.as('alice', '/alice/x', { method: 'DELETE' })).status).toBe(404);
    expect((await world.as('alice', '/alice/y', putText())).status).toBe(201);
    // Publishing keeps the order of writes, so a pub for the failed writes would have come first.
    await socket.waitFor((line) => line === `pub ${BASE}/alice/y`);
    expect(socket.sent.filter((line) => line.startsWith('pub'))).toEqual([`pub ${BASE}/alice/y`, `pub ${BASE}/alice/`]);
  });
});

describe('--notifications-auth', () => {
  it('lets solid-0.1 subscribe only where the caller of the upgrade request may read', async () => {
    const world = await podWorld(['alice'], { notifications: true, notificationsAuth: true });
    const anonymous = await connect(world.app, `${BASE}/.notifications`);
    anonymous.handlers!.message(`sub ${BASE}/alice/private`);
    await anonymous.waitFor((line) => line === `err ${BASE}/alice/private forbidden`);

    const byHeader = await connect(world.app, `${BASE}/.notifications`, { authorization: `Bearer ${world.tokens.alice}` });
    byHeader.handlers!.message(`sub ${BASE}/alice/private`);
    await byHeader.waitFor((line) => line === `ack ${BASE}/alice/private`);

    const byQuery = await connect(world.app, `${BASE}/.notifications?access_token=${world.tokens.alice}`);
    byQuery.handlers!.message(`sub ${BASE}/alice/private`);
    await byQuery.waitFor((line) => line === `ack ${BASE}/alice/private`);
  });

  it('without it, anyone may subscribe to any URL on the server', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const anonymous = await connect(world.app, `${BASE}/.notifications`);
    anonymous.handlers!.message(`sub ${BASE}/alice/private`);
    await anonymous.waitFor((line) => line === `ack ${BASE}/alice/private`);
  });

  it("never lets anyone watch the server's own files", async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true });
    const socket = await connect(world.app, `${BASE}/.notifications`);
    socket.handlers!.message(`sub ${BASE}/alice/.quota.json`);
    await socket.waitFor((line) => line === `err ${BASE}/alice/.quota.json invalid-uri`);
    const service = '/.notifications/WebSocketChannel2023/';
    expect((await world.as('alice', service, subscription(`${BASE}/.server/invites.json`))).status).toBe(404);
  });
});
