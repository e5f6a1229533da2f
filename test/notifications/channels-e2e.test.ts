/**
 * WebhookChannel2023 and StreamingHTTPChannel2023 against real `svc start` processes: a webhook receiver
 * on loopback that verifies each request with @solid/access-token-verifier (the verifier CSS receivers use),
 * a streaming reader that is a plain fetch reading the body, and two instances sharing Redis.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSolidTokenVerifier } from '@solid/access-token-verifier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/local-process.ts';
import { startTestRedis, type TestRedis } from '../support/redis.ts';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { Inbox, subscriptionService, WAIT_MS } from './support.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

const STREAMING_REL = 'http://www.w3.org/ns/solid/terms#updatesViaStreamingHttp2023';
const STORAGE_DESCRIPTION_REL = 'http://www.w3.org/ns/solid/terms#storageDescription';
const CONTEXT = ['https://www.w3.org/ns/activitystreams', 'https://www.w3.org/ns/solid/notification/v1'];

const running: RunningSvc[] = [];
const receivers: WebhookReceiver[] = [];
const inboxes: Inbox[] = [];
const roots: string[] = [];

afterAll(async () => {
  for (const inbox of inboxes) inbox.close();
  for (const svc of running) await svc.stop();
  for (const receiver of receivers) await receiver.close();
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

async function svc(args: string[], root?: string): Promise<{ process: RunningSvc; base: string }> {
  const started = await startSvc(['--notifications', '--quiet', ...args], {}, root ? { root } : {});
  running.push(started);
  // The token verifier takes http only on localhost (Solid-OIDC wants https elsewhere).
  return { process: started, base: started.base.replace('127.0.0.1', 'localhost') };
}

/** A receiver that keeps only requests @solid/access-token-verifier accepts, as coming from `sender`. */
async function verifyingReceiver(): Promise<WebhookReceiver & { senders: string[] }> {
  const receiver = Object.assign(new WebhookReceiver(), { senders: [] as string[] });
  const verify = createSolidTokenVerifier();
  receiver.verify = async (request, url) => {
    const payload = await verify(String(request.headers.authorization), { header: String(request.headers.dpop), method: 'POST', url });
    receiver.senders.push(payload.webid);
  };
  receivers.push(receiver);
  return receiver.start();
}

async function createPod(base: string, name: string): Promise<string> {
  const response = await fetch(`${base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { token: string }).token;
}

const as = (token: string, headers: Record<string, string> = {}) => ({ authorization: `Bearer ${token}`, ...headers });

function linked(response: Response, rel: string): string {
  const link = (response.headers.get('link') ?? '').split(', ').find((part) => part.endsWith(`rel="${rel}"`));
  if (!link) throw new Error(`no ${rel} link`);
  return /^<([^>]+)>/.exec(link)![1]!;
}

/** Finds the webhook service from a resource, as a client does (Link → storage description), and subscribes. */
async function subscribeWebhook(base: string, token: string, topic: string, sendTo: string): Promise<Record<string, string>> {
  const head = await fetch(topic, { method: 'HEAD', headers: as(token) });
  const description = await fetch(linked(head, STORAGE_DESCRIPTION_REL), { headers: { accept: 'application/ld+json' } });
  const service = subscriptionService(await description.json(), 'WebhookChannel2023');
  expect(service).toBe(`${base}/.notifications/WebhookChannel2023/`);
  const response = await fetch(service, {
    method: 'POST',
    headers: as(token, { 'content-type': 'application/ld+json' }),
    body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'http://www.w3.org/ns/solid/notifications#WebhookChannel2023', topic, sendTo }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, string>;
}

/** A streaming reader: fetch with the caller's token, reading JSON-LD notifications line by line from the body. */
class StreamingReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = '';
  readonly #controller = new AbortController();
  readonly response: Promise<Response>;

  constructor(receiveFrom: string, token: string) {
    this.response = fetch(receiveFrom, { headers: as(token, { accept: 'application/ld+json' }), signal: this.#controller.signal });
    const body = this.response.then((response) => {
      if (response.status !== 200) throw new Error(`stream refused: ${response.status}`);
      return response.body!.pipeThrough(new TextDecoderStream());
    });
    let reader: ReadableStreamDefaultReader<string> | undefined;
    this.#reader = {
      read: async () => (reader ??= (await body).getReader()).read(),
    } as ReadableStreamDefaultReader<string>;
  }

  /** The next notification; null once the stream has ended; fails after WAIT_MS. */
  async next(): Promise<Record<string, unknown> | null> {
    const deadline = Date.now() + WAIT_MS;
    while (!this.#buffer.includes('\n')) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no notification in time')), Math.max(1, deadline - Date.now()))));
      const { done, value } = await Promise.race([this.#reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (done) return null;
      this.#buffer += value;
    }
    const end = this.#buffer.indexOf('\n');
    const line = this.#buffer.slice(0, end);
    this.#buffer = this.#buffer.slice(end + 1);
    return JSON.parse(line) as Record<string, unknown>;
  }

  close(): void {
    this.#controller.abort();
  }
}

describe('one instance (svc start --notifications --allow-private-fetch)', () => {
  let base: string;
  let token: string;
  let hook: WebhookReceiver & { senders: string[] };

  beforeAll(async () => {
    ({ base } = await svc(['--allow-private-fetch']));
    token = await createPod(base, 'alice');
    hook = await verifyingReceiver();
  });

  it('POSTs a write’s notification to a webhook receiver on loopback, signed so that a Solid-OIDC verifier accepts it', async () => {
    const channel = await subscribeWebhook(base, token, `${base}/alice/`, `${hook.url}alice`);
    expect(channel.sender).toBe(`${base}/.notifications/WebhookChannel2023/webId`);
    const put = await fetch(`${base}/alice/note.txt`, { method: 'PUT', headers: as(token, { 'content-type': 'text/plain' }), body: 'hello' });
    expect(put.status).toBe(201);
    const [request] = await hook.waitFor(1);
    expect(hook.verified).toHaveLength(1);
    expect(hook.senders).toEqual([channel.sender]);
    const notification = JSON.parse(request!.body);
    expect(notification).toEqual({
      '@context': CONTEXT,
      id: expect.stringMatching(/^urn:uuid:/),
      type: 'Add',
      object: `${base}/alice/note.txt`,
      target: `${base}/alice/`,
      state: expect.any(String),
      published: expect.any(String),
    });
    expect(new Date(notification.published).toISOString()).toBe(notification.published);
  });

  it('stops once unsubscribed (DELETE on the channel id)', async () => {
    const topic = `${base}/alice/un/note.txt`;
    const ended = await subscribeWebhook(base, token, topic, `${hook.url}ended`);
    await subscribeWebhook(base, token, topic, `${hook.url}kept`);
    expect((await fetch(ended.id!, { method: 'DELETE', headers: as(token) })).status).toBe(204);
    expect((await fetch(topic, { method: 'PUT', headers: as(token, { 'content-type': 'text/plain' }), body: 'x' })).status).toBe(201);
    // Both were asked for the same write: had the ended one still been there, it would have been sent it too.
    await hook.waitForPath('/kept');
    expect(hook.notifications('/kept')).toMatchObject([{ type: 'Create', object: topic }]);
    expect(hook.notifications('/ended')).toEqual([]);
  });

  it('never follows a redirect of a webhook: a 3xx answer is a failed delivery, retried at the same URL', async () => {
    // Were a redirect followed, a 301/302/303 would turn the POST into a GET of the new URL, and a 307/308
    // would send the notification to a URL nobody subscribed (with a DPoP proof made for the old one).
    hook.redirects.set('/moved-302', { status: 302, location: `${hook.url}landing-302` });
    hook.redirects.set('/moved-307', { status: 307, location: `${hook.url}landing-307` });
    const topic = `${base}/alice/moved/note.txt`;
    await subscribeWebhook(base, token, topic, `${hook.url}moved-302`);
    await subscribeWebhook(base, token, topic, `${hook.url}moved-307`);
    expect((await fetch(topic, { method: 'PUT', headers: as(token, { 'content-type': 'text/plain' }), body: 'x' })).status).toBe(201);
    // The second attempt comes after the first has ended, redirects and all.
    await hook.waitForPath('/moved-302', 2);
    await hook.waitForPath('/moved-307', 2);
    expect(hook.arrived.filter((request) => request.includes('/landing'))).toEqual([]);
    expect(hook.notifications('/moved-307')[0]).toMatchObject({ type: 'Create', object: topic });
  });

  it('streams the same changes to a reader that fetches the linked receiveFrom and reads the body', async () => {
    const container = await fetch(`${base}/alice/private/`, { method: 'HEAD', headers: as(token) });
    const receiveFrom = linked(container, STREAMING_REL);
    expect(receiveFrom).toBe(`${base}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${base}/alice/private/`)}`);
    expect((await fetch(receiveFrom)).status).toBe(401);
    const reader = new StreamingReader(receiveFrom, token);
    try {
      expect((await reader.response).headers.get('content-type')).toBe('application/ld+json');
      expect(await reader.next()).toMatchObject({ type: 'Update', object: `${base}/alice/private/` });
      const put = await fetch(`${base}/alice/private/streamed.txt`, { method: 'PUT', headers: as(token, { 'content-type': 'text/plain' }), body: 's' });
      expect(await reader.next()).toEqual({
        '@context': CONTEXT,
        id: expect.stringMatching(/^urn:uuid:/),
        type: 'Add',
        object: `${base}/alice/private/streamed.txt`,
        target: `${base}/alice/private/`,
        state: expect.any(String),
        published: expect.any(String),
      });
      expect(put.status).toBe(201);
    } finally {
      reader.close();
    }
  });
});

describe('without --allow-private-fetch', () => {
  it('refuses a webhook on a loopback or private address', async () => {
    const { base } = await svc([]);
    const token = await createPod(base, 'alice');
    for (const sendTo of ['http://127.0.0.1:9/hook', 'https://127.0.0.1:9/hook', 'https://192.168.1.1/hook']) {
      const response = await fetch(`${base}/.notifications/WebhookChannel2023/`, {
        method: 'POST',
        headers: as(token, { 'content-type': 'application/ld+json' }),
        body: JSON.stringify({ type: 'WebhookChannel2023', topic: `${base}/alice/`, sendTo }),
      });
      expect(response.status, sendTo).toBe(422);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });
});

describe('a restart', () => {
  it('keeps webhook subscriptions: they are stored with the pods', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-webhooks-'));
    roots.push(root);
    const hook = await verifyingReceiver();
    // The same port after the restart, as a deployment keeps its address: the sender's WebID is found there.
    const port = ['-p', String(await freePort()), '--allow-private-fetch'];
    const first = await svc(port, root);
    const token = await createPod(first.base, 'alice');
    await subscribeWebhook(first.base, token, `${first.base}/alice/`, `${hook.url}restart`);
    await first.process.stop();
    const second = await svc(port, root);
    expect((await fetch(`${second.base}/alice/after.txt`, { method: 'PUT', headers: as(token, { 'content-type': 'text/plain' }), body: 'a' })).status).toBe(201);
    const [request] = await hook.waitFor(1);
    expect(JSON.parse(request!.body)).toMatchObject({ type: 'Add', object: `${second.base}/alice/after.txt` });
    expect(hook.verified).toHaveLength(1);
  });
});

describe('two instances on one data directory with --redis-url', () => {
  let redis: TestRedis;
  let a: string;
  let b: string;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    redis = await startTestRedis();
    const root = await mkdtemp(join(tmpdir(), 'svc-channels-scale-'));
    roots.push(root);
    a = (await svc(['--allow-private-fetch', '--redis-url', redis.url], root)).base;
    b = (await svc(['--allow-private-fetch', '--redis-url', redis.url], root)).base;
    alice = await createPod(a, 'alice');
    bob = await createPod(b, 'bob');
  }, 60_000);

  afterAll(async () => {
    await redis?.stop();
  });

  const write = (base: string, path: string) => fetch(base + path, { method: 'PUT', headers: as(alice, { 'content-type': 'text/plain' }), body: path });

  it('sends a webhook made through one instance, for a write through the other, once', async () => {
    const hook = await verifyingReceiver();
    expect((await write(a, '/alice/shared/seed.txt')).status).toBe(201);
    await subscribeWebhook(a, alice, `${a}/alice/shared/`, `${hook.url}both`);
    expect((await write(b, '/alice/shared/via-b.txt')).status).toBe(201);
    await hook.waitFor(1);
    expect((await write(a, '/alice/shared/via-a.txt')).status).toBe(201);
    await hook.waitFor(2);
    // Notifications name resources at the origin the subscription was made at.
    expect(hook.notifications('/both').map((n) => n.object)).toEqual([`${a}/alice/shared/via-b.txt`, `${a}/alice/shared/via-a.txt`]);
    expect(hook.verified).toHaveLength(2);
  });

  it('streams a write through the other instance to a reader held by one', async () => {
    const reader = new StreamingReader(`${a}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${a}/alice/shared/`)}`, alice);
    try {
      expect(await reader.next()).toMatchObject({ type: 'Update' });
      expect((await write(b, '/alice/shared/streamed-via-b.txt')).status).toBe(201);
      expect(await reader.next()).toMatchObject({ type: 'Add', object: `${a}/alice/shared/streamed-via-b.txt` });
    } finally {
      reader.close();
    }
  });

  it('closes a WebSocketChannel2023 channel held by one instance once Read is revoked through the other', async () => {
    const bobWebId = `${a}/bob/#me`;
    const acl = (reader: string | null) =>
      `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.\n` +
      (reader ? `<#bob> a acl:Authorization; acl:agent <${reader}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n` : '');
    const putAcl = (base: string, reader: string | null) =>
      fetch(`${base}/alice/watched/.acl`, { method: 'PUT', headers: as(alice, { 'content-type': 'text/turtle' }), body: acl(reader) });
    expect((await putAcl(a, bobWebId)).status).toBe(201);
    const response = await fetch(`${a}/.notifications/WebSocketChannel2023/`, {
      method: 'POST',
      headers: as(bob, { 'content-type': 'application/ld+json' }),
      body: JSON.stringify({ type: 'WebSocketChannel2023', topic: `${a}/alice/watched/` }),
    });
    expect(response.status).toBe(200);
    const inbox = new Inbox(((await response.json()) as { receiveFrom: string }).receiveFrom);
    inboxes.push(inbox);
    await inbox.opened;
    expect((await write(b, '/alice/watched/first.txt')).status).toBe(201);
    expect(JSON.parse(await inbox.next())).toMatchObject({ type: 'Add', object: `${a}/alice/watched/first.txt` });

    expect((await putAcl(b, null)).status).toBe(204);
    expect((await write(b, '/alice/watched/second.txt')).status).toBe(201);
    expect(await inbox.closed).toEqual({ code: 1008, reason: 'read access revoked' });
    expect(inbox.pending()).toEqual([]);
  });
});
