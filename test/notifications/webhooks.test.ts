import { afterEach, describe, expect, it, vi } from 'vitest';
import { nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';
import { NotificationHub } from '../../src/notifications/hub.ts';
import { WebhookSender } from '../../src/notifications/webhook-sender.ts';
import type { WebhookMessage } from '../../src/notifications/webhook-record.ts';
import { MAX_FAILED_NOTIFICATIONS, MAX_WEBHOOKS_PER_AGENT, REFRESH_INTERVAL_MS, Webhooks } from '../../src/notifications/webhooks.ts';
import type { FanOut } from '../../src/cluster/fan-out.ts';
import type { OutboundFetch } from '../../src/platform.ts';
import { allowEverything } from '../../src/wac/access-control.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { memberNames } from '../support/storage.ts';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from '../wac/pods.ts';
import { subscriptionService, WAIT_MS } from './support.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

const SERVICE = '/.notifications/WebhookChannel2023/';
const TYPE = 'http://www.w3.org/ns/solid/notifications#WebhookChannel2023';
const RECORDS = '/.server/notifications/webhooks/';
const bob = `${BASE}/bob/#me`;

const receivers: WebhookReceiver[] = [];
async function receiver(): Promise<WebhookReceiver> {
  const started = await new WebhookReceiver().start();
  receivers.push(started);
  return started;
}
afterEach(async () => {
  for (const open of receivers.splice(0)) await open.close();
});

const subscription = (topic: string, sendTo: string, extra: Record<string, unknown> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/ld+json' },
  body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'WebhookChannel2023', topic, sendTo, ...extra }),
});

const sharing = (reader: string | null) =>
  putTurtleAcl(ownerRule('../#me') + (reader ? `<#reader> a acl:Authorization; acl:agent <${reader}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n` : ''));

/** Pods whose server may send webhooks to loopback (as with --allow-private-fetch). */
function world(flags: Record<string, unknown> = {}, storage?: MemoryDriver) {
  return podWorld(['alice', 'bob'], { notifications: true, allowPrivateFetch: true, ...flags }, { fetch: nodeOutboundFetch({ allowPrivate: true }), ...(storage && { storage }) });
}

describe('WebhookChannel2023 subscriptions', () => {
  it('is a subscription service of the storage description', async () => {
    const pods = await world();
    expect(subscriptionService(await (await pods.request('/.well-known/solid')).json(), 'WebhookChannel2023')).toBe(`${BASE}${SERVICE}`);
    const service = await (await pods.request(SERVICE)).json();
    expect(service['notify:channelType']).toEqual({ '@id': TYPE });
  });

  it('answers a channel description naming the sender, and POSTs each change of the topic to sendTo', async () => {
    const pods = await world();
    const hook = await receiver();
    const response = await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, `${hook.url}alice`));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    const channel = await response.json();
    expect(channel).toMatchObject({ type: TYPE, topic: `${BASE}/alice/`, sendTo: `${hook.url}alice`, sender: `${BASE}${SERVICE}webId` });
    expect(channel.id).toMatch(new RegExp(`^${BASE}${SERVICE}[0-9a-f-]{36}$`));
    // No endAt asked: the channel ends after 14 days at most.
    expect(Date.parse(channel.endAt) - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);

    const put = await pods.as('alice', '/alice/note', putText());
    const [request] = await hook.waitFor(1);
    expect(request!.headers['content-type']).toBe('application/ld+json');
    expect(request!.headers.authorization).toMatch(/^DPoP ey/);
    expect(request!.headers.dpop).toMatch(/^ey/);
    expect(JSON.parse(request!.body)).toMatchObject({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://www.w3.org/ns/solid/notification/v1'],
      type: 'Add',
      object: `${BASE}/alice/note`,
      target: `${BASE}/alice/`,
    });
    expect(put.status).toBe(201);
  });

  it.each([
    ['an anonymous caller', null, subscription(`${BASE}/alice/`, 'https://hooks.example/a'), 401],
    ['a caller without Read on the topic', 'bob', subscription(`${BASE}/alice/private/`, 'https://hooks.example/a'), 403],
    ['no sendTo', 'alice', subscription(`${BASE}/alice/`, ''), 422],
    ['a sendTo with credentials', 'alice', subscription(`${BASE}/alice/`, 'https://user:secret@hooks.example/a'), 422],
    ['another channel type', 'alice', { ...subscription(`${BASE}/alice/`, 'https://hooks.example/a'), body: JSON.stringify({ type: 'WebSocketChannel2023', topic: `${BASE}/alice/`, sendTo: 'https://hooks.example/a' }) }, 422],
  ])('refuses %s', async (_what, who, init, status) => {
    const pods = await world();
    const response = await pods.as(who, SERVICE, init as RequestInit);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    expect(await memberNames(pods.storage, RECORDS)).toEqual([]);
  });

  it('refuses loopback, private and plain-http targets without --allow-private-fetch', async () => {
    const pods = await podWorld(['alice'], { notifications: true }, { fetch: nodeOutboundFetch({ allowPrivate: false }) });
    for (const sendTo of ['http://hooks.example/a', 'https://127.0.0.1:9/a', 'https://10.0.0.8/a', 'https://localhost/a', 'https://[::1]/a']) {
      const response = await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, sendTo));
      expect(response.status, sendTo).toBe(422);
      expect((await response.json()).detail, sendTo).toMatch(/https|loopback|private|address/);
    }
    expect((await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, 'https://hooks.example/a'))).status).toBe(200);
  });

  it('is ended by the agent that made it (DELETE on its id), and by no one else', async () => {
    const pods = await world();
    const hook = await receiver();
    const made = await (await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, `${hook.url}ended`))).json();
    const other = await (await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, `${hook.url}kept`))).json();
    const path = new URL(made.id).pathname;
    expect((await pods.as('alice', path)).status).toBe(200);
    expect((await pods.as('bob', path, { method: 'DELETE' })).status).toBe(403);
    expect((await pods.as(null, path, { method: 'DELETE' })).status).toBe(401);
    expect((await pods.as('alice', path, { method: 'DELETE' })).status).toBe(204);
    expect((await pods.as('alice', path, { method: 'DELETE' })).status).toBe(404);
    expect(await memberNames(pods.storage, RECORDS)).toEqual([`${new URL(other.id).pathname.slice(SERVICE.length)}.json`]);
    await pods.as('alice', '/alice/after', putText());
    // The other subscription hears the write; the ended one, asked first, would have been sent it too.
    await hook.waitFor(1);
    expect(hook.received.map((request) => request.path)).toEqual(['/kept']);
  });

  it('ends once its subscriber may no longer read the topic, before sending anything of the write', async () => {
    const pods = await world();
    const hook = await receiver();
    expect((await pods.as('alice', '/alice/shared/.acl', sharing(bob))).status).toBe(201);
    expect((await pods.as('bob', SERVICE, subscription(`${BASE}/alice/shared/`, `${hook.url}bob`))).status).toBe(200);
    expect((await pods.as('alice', SERVICE, subscription(`${BASE}/alice/shared/`, `${hook.url}alice`))).status).toBe(200);
    await pods.as('alice', '/alice/shared/first', putText());
    await hook.waitFor(2);
    expect((await pods.as('alice', '/alice/shared/.acl', sharing(null))).status).toBe(204);
    await pods.as('alice', '/alice/shared/second', putText());
    await hook.waitFor(3);
    await vi.waitFor(async () => expect(await memberNames(pods.storage, RECORDS)).toHaveLength(1), { timeout: WAIT_MS });
    expect(hook.notifications('/bob').map((n) => n.object)).toEqual([`${BASE}/alice/shared/first`]);
    expect(hook.notifications('/alice').map((n) => n.object)).toEqual([`${BASE}/alice/shared/first`, `${BASE}/alice/shared/second`]);
  });

  it('survives a restart: a new server on the same storage reads the subscriptions and sends', async () => {
    const storage = new MemoryDriver();
    const first = await world({}, storage);
    const hook = await receiver();
    expect((await first.as('alice', SERVICE, subscription(`${BASE}/alice/`, `${hook.url}after-restart`))).status).toBe(200);
    await first.app.close();
    const second = await podWorld([], { notifications: true, allowPrivateFetch: true }, { fetch: nodeOutboundFetch({ allowPrivate: true }), storage });
    expect((await second.app.fetch(new Request(`${BASE}/alice/restarted`, { ...putText(), headers: { 'content-type': 'text/plain', authorization: `Bearer ${first.tokens.alice}` } }))).status).toBe(201);
    const [request] = await hook.waitFor(1);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'Add', object: `${BASE}/alice/restarted` });
  });

  it('bounds subscriptions in all (--notifications-webhooks) and per agent', async () => {
    const pods = await world({ notificationsWebhooks: 2 });
    expect((await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, 'https://hooks.example/1'))).status).toBe(200);
    expect((await pods.as('bob', SERVICE, subscription(`${BASE}/bob/`, 'https://hooks.example/2'))).status).toBe(200);
    const full = await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, 'https://hooks.example/3'));
    expect(full.status).toBe(503);
    expect(full.headers.get('retry-after')).not.toBeNull();

    const many = await world();
    for (let i = 0; i < MAX_WEBHOOKS_PER_AGENT; i++) expect((await many.as('alice', SERVICE, subscription(`${BASE}/alice/`, `https://hooks.example/${i}`))).status).toBe(200);
    expect((await many.as('alice', SERVICE, subscription(`${BASE}/alice/`, 'https://hooks.example/more'))).status).toBe(429);
    expect((await many.as('bob', SERVICE, subscription(`${BASE}/bob/`, 'https://hooks.example/bob'))).status).toBe(200);
  });

  it('is not offered without an outbound fetch', async () => {
    const pods = await podWorld(['alice'], { notifications: true });
    expect((await pods.as('alice', SERVICE, subscription(`${BASE}/alice/`, 'https://hooks.example/a'))).status).not.toBe(200);
    expect(JSON.stringify(await (await pods.request('/.well-known/solid')).json())).not.toContain('Webhook');
  });
});

describe('delivery', () => {
  /** Webhooks on their own, with a hub to publish into, short retry delays and the given outbound fetch. */
  async function deliveries(fetch: OutboundFetch, storage = new MemoryDriver(), now = Date.now) {
    const hub = new NotificationHub({ stateOf: async () => '"etag"' });
    const logs: string[] = [];
    const webhooks = new Webhooks({
      storage,
      access: allowEverything,
      hub,
      sender: new WebhookSender(storage, Date.now),
      fetch,
      limit: 100,
      allowPrivate: true,
      now,
      log: (line) => logs.push(line),
      pathOf: (url) => url.pathname,
      urlOf: (path, origin) => origin + path,
      retryDelaysMs: [10, 10, 10],
    });
    await webhooks.init();
    const subscribe = async (sendTo: string): Promise<string> => {
      const response = await webhooks.subscribe(new Request(`${BASE}${SERVICE}`, subscription(`${BASE}/topic`, sendTo)), { webId: `${BASE}/alice/#me`, origin: null });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: string }).id;
    };
    const write = () => hub.publish([{ path: '/topic', kind: 'update' }]);
    return { storage, webhooks, subscribe, write, logs };
  }

  it('tries again after a failure, with a new signature each time, and sends each notification once', async () => {
    const hook = await receiver();
    hook.statuses = [500, 503];
    const { subscribe, write } = await deliveries(nodeOutboundFetch({ allowPrivate: true }));
    await subscribe(`${hook.url}flaky`);
    write();
    await hook.waitFor(3);
    const proofs = new Set(hook.received.map((request) => request.headers.dpop));
    expect(proofs.size).toBe(3);
    write();
    await hook.waitFor(4);
    expect(new Set(hook.received.map((request) => JSON.parse(request.body).id)).size).toBe(2);
  });

  it(`drops a subscription whose receiver failed ${MAX_FAILED_NOTIFICATIONS} notifications in a row, and one that answers 410 at once`, async () => {
    const hook = await receiver();
    hook.statuses = Array(100).fill(500);
    const { storage, webhooks, subscribe, write, logs } = await deliveries(nodeOutboundFetch({ allowPrivate: true }));
    await subscribe(`${hook.url}failing`);
    for (let i = 0; i < MAX_FAILED_NOTIFICATIONS; i++) write();
    await vi.waitFor(() => expect(webhooks.size).toBe(0), { timeout: WAIT_MS });
    expect(hook.received).toHaveLength(MAX_FAILED_NOTIFICATIONS * 4);
    expect(await memberNames(storage, RECORDS)).toEqual([]);
    expect(logs.join('\n')).toContain('could not be delivered (answered 500)');

    hook.statuses = [410];
    await subscribe(`${hook.url}gone`);
    write();
    await vi.waitFor(() => expect(webhooks.size).toBe(0), { timeout: WAIT_MS });
    expect(hook.received.filter((request) => request.path === '/gone')).toHaveLength(1);
  });

  it('sends nothing to a name that resolves to a private address: the guarded fetch refuses it', async () => {
    const hook = await receiver();
    const port = new URL(hook.url).port;
    // hooks.example resolves to loopback, as a hostile DNS answer would make it.
    const guarded = nodeOutboundFetch({ allowPrivate: false, resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
    const { webhooks, subscribe, write, logs } = await deliveries(guarded);
    await subscribe(`http://hooks.example:${port}/private`);
    for (let i = 0; i < MAX_FAILED_NOTIFICATIONS; i++) write();
    await vi.waitFor(() => expect(webhooks.size).toBe(0), { timeout: WAIT_MS });
    expect(hook.received).toEqual([]);
    expect(logs.join('\n')).toMatch(/127\.0\.0\.1, .*loopback/);
  });

  it('with other instances, reads the records again after a while, so a lost announcement is made up for', async () => {
    const storage = new MemoryDriver();
    let now = Date.now();
    // Announcements that reach nobody, as while Redis is away.
    const lost: FanOut<WebhookMessage> = { send: () => {}, init: async () => {} };
    const here = await deliveries(nodeOutboundFetch({ allowPrivate: true }), storage);
    here.webhooks.shareWith(lost);
    const there = await deliveries(nodeOutboundFetch({ allowPrivate: true }), storage, () => now);
    there.webhooks.shareWith(lost);
    const id = await here.subscribe('https://hooks.example/a');
    there.webhooks.wrote();
    expect(there.webhooks.size).toBe(0);
    now += REFRESH_INTERVAL_MS;
    there.webhooks.wrote();
    await vi.waitFor(() => expect(there.webhooks.size).toBe(1), { timeout: WAIT_MS });
    expect((await here.webhooks.unsubscribe(new URL(id).pathname.slice(SERVICE.length), { webId: `${BASE}/alice/#me`, origin: null })).status).toBe(204);
    now += REFRESH_INTERVAL_MS;
    there.webhooks.wrote();
    await vi.waitFor(() => expect(there.webhooks.size).toBe(0), { timeout: WAIT_MS });
  });
});
