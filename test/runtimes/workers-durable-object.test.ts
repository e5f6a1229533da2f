/**
 * Two Workers running the same bundle (`wrangler deploy --dry-run`) as separate isolates in workerd, sharing
 * one R2 bucket and one shared-state Durable Object (the first defines it, the second binds it by
 * `scriptName`), as isolates of one deployment do. Requests are spread across both.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { R2Driver, type R2BucketLike } from '../../storage-drivers/r2.ts';
import { measurePodUsage } from '../../src/quota/record.ts';
import { Inbox } from '../notifications/support.ts';
import { buildWorkerBundle, isolatesSharingTheObject, type WorkerBundle } from '../support/worker-bundle.ts';
import { form, logIn, PASSWORD } from '../idp/support.ts';

const BASE = 'http://pod.test';
const QUOTA_BYTES = 60_000;

let bundle: WorkerBundle;

beforeAll(async () => {
  bundle = await buildWorkerBundle();
}, 120_000);

afterAll(async () => {
  await bundle?.remove();
});

/** The two isolates, the first of which defines the Durable Object (SHARED) that both bind. */
function startIsolates(vars: Record<string, string>): Miniflare {
  return new Miniflare({ workers: isolatesSharingTheObject(bundle, { SVC_QUIET: 'true', SVC_BASE_URL: BASE, ...vars }) });
}

type Send = (path: string, init?: RequestInit) => Promise<Response>;

/** A request to each isolate in turn: `via(i)` is the first for even i, the second for odd. */
async function isolatesOf(mf: Miniflare): Promise<(i: number) => Send> {
  const workers = [await mf.getWorker('first'), await mf.getWorker('second')];
  return (i) => async (path, init) => (await workers[i % 2]!.fetch(BASE + path, init as never)) as unknown as Response;
}

async function createPod(send: Send, name: string): Promise<string> {
  const created = await send('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(created.status).toBe(201);
  return ((await created.json()) as { token: string }).token;
}

async function status(response: Promise<Response>): Promise<number> {
  const answer = await response;
  await answer.arrayBuffer();
  return answer.status;
}

describe('two Worker isolates sharing the Durable Object', () => {
  let mf: Miniflare;
  let via: (i: number) => Send;
  let token: string;
  const authorized = (extra: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...extra });
  const inboxes: Inbox[] = [];
  /** The Miniflare HTTP server's WebSocket URL of a path; the socket's upgrade goes to the first isolate. */
  let socketUrl: (path: string) => string;

  beforeAll(async () => {
    mf = startIsolates({ SVC_NOTIFICATIONS: 'true', SVC_LIVE_RELOAD: 'true', SVC_CONNEG: 'true', SVC_RATE_LIMIT: 'false', SVC_DEFAULT_QUOTA: String(QUOTA_BYTES) });
    const url = await mf.ready;
    socketUrl = (path) => url.href.replace(/^http/, 'ws').replace(/\/$/, '') + path;
    via = await isolatesOf(mf);
    token = await createPod(via(0), 'alice');
  });

  afterAll(async () => {
    for (const inbox of inboxes) inbox.socket.close();
    await mf?.dispose();
  });

  it('refuse exactly the writes past a pod’s quota, and leave used equal to what is stored', async () => {
    // A pod of its own, which this test fills.
    const filler = await createPod(via(1), 'filled');
    const headers = { authorization: `Bearer ${filler}`, 'content-type': 'text/plain' };
    expect(await status(via(1)('/filled/q/seed.txt', { method: 'PUT', headers, body: 'seed' }))).toBe(201);
    const bucket = (await mf.getR2Bucket('PODS')) as unknown as R2BucketLike;
    const record = async () => JSON.parse(await (await mf.getR2Bucket('PODS')).get('filled/.quota.json').then((object) => object!.text())) as { limit: number; used: number };
    const before = await record();
    expect(before.limit).toBe(QUOTA_BYTES);
    const size = 1000;
    const fitting = Math.floor((QUOTA_BYTES - before.used) / size);
    const writes = fitting + 20;

    const statuses = await Promise.all(Array.from({ length: writes }, (_, i) => status(via(i)(`/filled/q/${i}.txt`, { method: 'PUT', headers, body: 'x'.repeat(size) }))));
    const counts = new Map<number, number>();
    for (const answer of statuses) counts.set(answer, (counts.get(answer) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ 201: fitting, 507: writes - fitting });
    expect(await record()).toEqual({ limit: QUOTA_BYTES, used: before.used + fitting * size });
    expect(await measurePodUsage(new R2Driver(bucket), '/filled/')).toBe(before.used + fitting * size);
  }, 120_000);

  it('apply concurrent PATCHes sent to both, losing none', async () => {
    expect(await status(via(0)('/alice/p.ttl', { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: '<#s> <#p> "start".' }))).toBe(201);
    const patches = 20;
    const statuses = await Promise.all(
      Array.from({ length: patches }, (_, i) => {
        const body = `@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n_:patch a solid:InsertDeletePatch; solid:inserts { <#s> <#p> "value ${i}". }.`;
        return status(via(i)('/alice/p.ttl', { method: 'PATCH', headers: authorized({ 'content-type': 'text/n3' }), body }));
      }),
    );
    expect(new Set(statuses)).toEqual(new Set([204]));
    const turtle = await (await via(1)('/alice/p.ttl', { headers: authorized({ accept: 'text/turtle' }) })).text();
    for (let i = 0; i < patches; i++) expect(turtle).toContain(`"value ${i}"`);
  }, 60_000);

  it('apply an ACL change made through one at once through the other', async () => {
    const path = '/alice/shared/doc.txt';
    expect(await status(via(0)(path, { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'hello' }))).toBe(201);
    // Each isolate has read (and cached) the ACL that keeps the public out.
    for (const i of [0, 1]) expect(await status(via(i)(path))).toBe(401);
    const acl = (publicRead: boolean) => `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent </alice/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
${publicRead ? '<#public> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.' : ''}`;
    expect(await status(via(0)('/alice/shared/.acl', { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: acl(true) }))).toBe(201);
    for (const i of [0, 1]) expect(await status(via(i)(path))).toBe(200);
    expect(await status(via(1)('/alice/shared/.acl', { method: 'PUT', headers: authorized({ 'content-type': 'text/turtle' }), body: acl(false) }))).toBe(204);
    for (const i of [0, 1]) expect(await status(via(i)(path))).toBe(401);
  });

  it('know a pod made through one as a pod (a storage root) through the other at once', async () => {
    // The first isolate has started (and read the pod records) before the pod exists.
    expect(await status(via(0)('/alice/', { method: 'HEAD', headers: authorized() }))).toBe(200);
    const bobToken = await createPod(via(1), 'bob');
    const head = await via(0)('/bob/', { method: 'HEAD', headers: { authorization: `Bearer ${bobToken}` } });
    expect(head.headers.get('link')).toContain('<http://www.w3.org/ns/pim/space#Storage>; rel="type"');
    expect(await status(via(0)('/bob/', { method: 'DELETE', headers: { authorization: `Bearer ${bobToken}` } }))).toBe(405);
  });

  it('let a solid-0.1 socket opened through one hear writes made through the other', async () => {
    const inbox = new Inbox(socketUrl('/.notifications'), 'solid-0.1', { Host: 'pod.test' });
    inboxes.push(inbox);
    await inbox.opened;
    expect(inbox.socket.protocol).toBe('solid-0.1');
    expect(await inbox.next()).toBe('protocol solid-0.1');
    const topic = `${BASE}/alice/n/solid01.txt`;
    expect(await inbox.ask(`sub ${topic}`)).toBe(`ack ${topic}`);
    expect(await status(via(1)('/alice/n/solid01.txt', { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'news' }))).toBe(201);
    expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${topic}`);
    expect(await status(via(0)('/alice/n/solid01.txt', { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'more news' }))).toBe(204);
    expect(await inbox.until((message) => message.startsWith('pub '))).toBe(`pub ${topic}`);
  });

  it('let a WebSocketChannel2023 channel made through one connect through the other and hear its writes', async () => {
    const topic = `${BASE}/alice/n/channel.txt`;
    const response = await via(1)('/.notifications/WebSocketChannel2023/', {
      method: 'POST',
      headers: authorized({ 'content-type': 'application/ld+json' }),
      body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'http://www.w3.org/ns/solid/notifications#WebSocketChannel2023', topic }),
    });
    expect(response.status).toBe(200);
    const receiveFrom = new URL(((await response.json()) as { receiveFrom: string }).receiveFrom);
    const inbox = new Inbox(socketUrl(receiveFrom.pathname + receiveFrom.search), undefined, { Host: 'pod.test' });
    inboxes.push(inbox);
    await inbox.opened;
    expect(await status(via(1)('/alice/n/channel.txt', { method: 'PUT', headers: authorized({ 'content-type': 'text/plain' }), body: 'news' }))).toBe(201);
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Create', object: topic });
  });

  it('let a live-reload socket opened through one hear writes to its page made through the other', async () => {
    expect(await status(via(0)('/alice/site/page.html', { method: 'PUT', headers: authorized({ 'content-type': 'text/html' }), body: '<p>one</p>' }))).toBe(201);
    const page = await (await via(1)('/alice/site/page.html', { headers: authorized({ accept: 'text/html' }) })).text();
    expect(page).toContain('<script src="/.live-reload.js"></script>');
    const inbox = new Inbox(socketUrl('/.live-reload?path=/alice/site/page.html'), undefined, { Host: 'pod.test', Authorization: `Bearer ${token}` });
    inboxes.push(inbox);
    await inbox.opened;
    expect(await status(via(1)('/alice/site/page.html', { method: 'PUT', headers: authorized({ 'content-type': 'text/html' }), body: '<p>two</p>' }))).toBe(204);
    expect(await inbox.next()).toBe('reload');
  });
});

describe('the Durable Object holding the WebSockets', () => {
  let mf: Miniflare;
  const inboxes: Inbox[] = [];

  afterAll(async () => {
    for (const inbox of inboxes) inbox.socket.close();
    await mf?.dispose();
  });

  it('counts them per client address (CF-Connecting-IP), refusing past the share with 429, and closes idle ones', async () => {
    mf = startIsolates({ SVC_NOTIFICATIONS: 'true', SVC_PUBLIC: 'true', SVC_MAX_SOCKETS_PER_ADDRESS: '2', SVC_SOCKET_IDLE_TIMEOUT: '1' });
    const url = (await mf.ready).href.replace(/^http/, 'ws') + '.notifications';
    const from = (address: string) => {
      const inbox = new Inbox(url, undefined, { Host: 'pod.test', 'CF-Connecting-IP': address });
      inboxes.push(inbox);
      return inbox;
    };
    const [first, second] = [from('192.0.2.1'), from('192.0.2.1')];
    await Promise.all([first.opened, second.opened]);
    await expect(from('192.0.2.1').opened).rejects.toThrow('upgrade refused: 429');
    await from('192.0.2.2').opened;
    // Subscribed to nothing, they are closed after the idle time (the runtime sends no pings: the core's sweep does it).
    expect(await first.closed).toEqual({ code: 1001, reason: 'idle: subscribed to nothing' });
    await second.closed;
    await from('192.0.2.1').opened;
  }, 60_000);
});

describe('two Worker isolates with a shared rate limit', () => {
  let mf: Miniflare;

  afterAll(async () => {
    await mf?.dispose();
  });

  it('fire it at the configured count across both', async () => {
    const limit = 6;
    mf = startIsolates({ SVC_RATE_LIMIT_WRITES: String(limit), SVC_RATE_LIMIT_REQUESTS: '0' });
    const via = await isolatesOf(mf);
    const token = await createPod(via(0), 'alice');
    const statuses: number[] = [];
    for (let i = 0; i < limit + 4; i++) {
      statuses.push(await status(via(i)(`/alice/r/${i}.txt`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/plain' }, body: 'r' })));
    }
    expect(statuses).toEqual([...Array<number>(limit).fill(201), ...Array<number>(4).fill(429)]);
  });
});

describe('two Worker isolates of an identity provider (--idp)', () => {
  let mf: Miniflare;

  afterAll(async () => {
    await mf?.dispose();
  });

  it('refuse a token through the other at once once the account signed out everywhere through one', async () => {
    mf = startIsolates({ SVC_IDP: 'true', SVC_RATE_LIMIT: 'false' });
    const via = await isolatesOf(mf);
    const account = { email: 'alice@example.org', password: PASSWORD };
    const created = await via(0)('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', ...account }) });
    expect(created.status).toBe(201);
    const script = await via(0)('/idp/credentials', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(account) });
    const { access_token: token } = (await script.json()) as { access_token: string };
    // The second isolate has accepted the token (and believes it alive) before the end.
    for (let i = 0; i < 2; i++) expect(await status(via(1)('/alice/private/', { headers: { authorization: `Bearer ${token}` } }))).toBe(200);

    const first = { request: (path: string, init?: RequestInit) => via(0)(path, { redirect: 'manual', ...init }) };
    const browser = await logIn(first);
    expect(await status(first.request('/idp/account/sign-out-everywhere', form({ csrf: browser.csrf }, { cookie: browser.cookies })))).toBe(200);
    expect(await status(via(1)('/alice/private/', { headers: { authorization: `Bearer ${token}` } }))).toBe(401);
  }, 60_000);
});
