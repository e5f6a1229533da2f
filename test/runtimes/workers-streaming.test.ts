/**
 * The Mastodon streaming API on Workers, as workerd runs it (the bundle of `wrangler deploy --dry-run` in
 * Miniflare, two isolates and the shared-state Durable Object): the sockets live in the object, a status
 * posted through the REST API of the other isolate reaches them, and they carry on through hibernation
 * (workerd evicts an object after 10 s without work) inside the per-address socket budget. The events
 * themselves are tested in test/mastodon/streaming.test.ts and, with masto, masto-client.test.ts.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { PASSWORD } from '../idp/support.ts';
import { OOB, outOfBandCode, registerApp } from '../oauth/support.ts';
import { buildWorkerBundle, isolatesSharingTheObject, runtimeOutput, type WorkerBundle } from '../support/worker-bundle.ts';

const BASE = 'http://pod.test';
const OWNER_SECRET = 'streaming-owner-secret-0123456789abcdef';
/** workerd evicts an object after 10 s without work; this leaves it time to. */
const PAST_EVICTION_MS = 16_000;
/** Logged once by each start of the app: the two isolates' and each of the object's. */
const APP_STARTED = /idp: the issuer is the public origin/g;

type Send = (path: string, init?: RequestInit) => Promise<Response>;

let bundle: WorkerBundle;
let mf: Miniflare;
const output = runtimeOutput();
let streamingUrl: string;
/** Requests through the second isolate: the sockets' upgrades go through the first, then to the object. */
let second: Send;
let token: string;

interface Stream {
  socket: WebSocket;
  events: Array<{ stream: string[]; event: string; payload: string }>;
  opened: Promise<void>;
}

/** A streaming socket from a client address, the token sent as the WebSocket protocol (as masto sends it). */
function connect(query: string, address: string, accessToken?: string): Stream {
  const socket = new WebSocket(`${streamingUrl}${query}`, accessToken ? [accessToken] : [], { headers: { Host: 'pod.test', 'CF-Connecting-IP': address } });
  const events: Stream['events'] = [];
  socket.on('message', (data) => events.push(JSON.parse(String(data))));
  const opened = new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused: ${response.statusCode}`)));
    socket.once('error', reject);
  });
  return { socket, events, opened };
}

async function post(text: string): Promise<string> {
  const response = await second('/api/v1/statuses', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ status: text }) });
  expect(response.status).toBe(200);
  return ((await response.json()) as { id: string }).id;
}

const updated = (stream: Stream, id: string) => stream.events.filter((message) => message.event === 'update' && (JSON.parse(message.payload) as { id: string }).id === id).map((message) => message.stream);

async function within(ms: number, check: () => boolean): Promise<boolean> {
  for (let waited = 0; waited < ms && !check(); waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
  return check();
}

/** Posts until one status reached every stream: subscriptions are made after the handshake, with no answer. */
async function postHeardBy(streams: Stream[], counts: number[]): Promise<string> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const id = await post(`hello from the edge ${attempt} #edge`);
    if (await within(5000, () => streams.every((stream, i) => updated(stream, id).length === counts[i]))) return id;
  }
  const heard = streams.map((stream) => stream.events.map((message) => `${message.stream.join(' ')} ${message.event} ${(JSON.parse(message.payload) as { content?: string }).content?.slice(0, 30) ?? message.payload}`));
  throw new Error(`no status reached every stream: ${JSON.stringify(heard)}\n${output.text()}`);
}

beforeAll(async () => {
  bundle = await buildWorkerBundle();
  mf = new Miniflare({
    handleRuntimeStdio: output.handleRuntimeStdio,
    workers: isolatesSharingTheObject(bundle, {
      SVC_QUIET: 'true',
      SVC_RATE_LIMIT: 'false',
      SVC_BASE_URL: BASE,
      SVC_IDP: 'true',
      SVC_ACTIVITYPUB: 'true',
      SVC_SINGLE_USER: 'true',
      SVC_SINGLE_USER_NAME: '',
      SVC_SINGLE_USER_SECRET: OWNER_SECRET,
      SVC_AP_USERNAME: 'alice',
      SVC_MAX_SOCKETS_PER_ADDRESS: '2',
    }),
  });
  streamingUrl = `${(await mf.ready).href.replace(/^http/, 'ws')}api/v1/streaming`;
  const worker = await mf.getWorker('second');
  second = async (path, init = {}) => (await worker.fetch(BASE + path, { ...init, redirect: 'manual' } as never)) as unknown as Response;
  // The owner trades the secret for a token, registers at the IdP, and allows a Mastodon app.
  const owner = await second('/.pods/owner-token', { method: 'POST', headers: { authorization: `Bearer ${OWNER_SECRET}` } });
  const ownerToken = ((await owner.json()) as { token: string }).token;
  const registered = await second('/idp/register', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${ownerToken}` }, body: JSON.stringify({ email: 'alice@example.org', password: PASSWORD }) });
  expect(registered.status).toBe(201);
  const client = await registerApp({ request: second });
  const code = await outOfBandCode({ request: second }, client, { scope: 'read write' });
  const granted = await second('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: OOB, client_id: client.client_id, client_secret: client.client_secret }).toString() });
  token = ((await granted.json()) as { access_token: string }).access_token;
}, 180_000);

afterAll(async () => {
  await mf?.dispose();
  await bundle?.remove();
});

describe('Mastodon streaming on Workers', () => {
  it('advertises the streaming API in the instance document, and answers its health check', async () => {
    const instance = (await (await second('/api/v2/instance')).json()) as { configuration: { urls: { streaming: string } } };
    expect(instance.configuration.urls.streaming).toBe('ws://pod.test');
    const health = await second('/api/v1/streaming/health');
    expect([health.status, await health.text()]).toEqual([200, 'OK']);
  });

  it('sends a status posted through the other isolate to user and public streams held by the object', async () => {
    const home = connect('?stream=user', '192.0.2.1', token);
    const visitor = connect('?stream=public', '192.0.2.1');
    await Promise.all([home.opened, visitor.opened]);
    try {
      expect(home.socket.protocol).toBe(token);
      const id = await postHeardBy([home, visitor], [1, 1]);
      expect([updated(home, id), updated(visitor, id)]).toEqual([[['user']], [['public']]]);
      // Both sockets count against the address's share of the object's one budget.
      await expect(connect('?stream=public', '192.0.2.1').opened).rejects.toThrow('upgrade refused: 429');
    } finally {
      home.socket.close();
      visitor.socket.close();
    }
  }, 90_000);

  it('carries the streams on through hibernation: a status posted after the object was evicted reaches them', async () => {
    const home = connect('?stream=user', '192.0.2.2', token);
    const tagged = connect('', '192.0.2.2');
    await Promise.all([home.opened, tagged.opened]);
    tagged.socket.send(JSON.stringify({ type: 'subscribe', stream: 'hashtag', tag: 'Edge' }));
    tagged.socket.send(JSON.stringify({ type: 'subscribe', stream: 'public:local' }));
    try {
      await postHeardBy([home, tagged], [1, 2]);
      const started = output.text().match(APP_STARTED)?.length ?? 0;
      await new Promise((resolve) => setTimeout(resolve, PAST_EVICTION_MS));
      const id = await post('after hibernation #edge');
      expect(await within(10_000, () => updated(home, id).length === 1 && updated(tagged, id).length === 2)).toBe(true);
      expect([updated(home, id), updated(tagged, id).sort()]).toEqual([[['user']], [['hashtag', 'Edge'], ['public:local']]]);
      // The object did start again meanwhile: the sockets were carried on (token and streams), not kept in memory.
      expect(output.text().match(APP_STARTED)?.length ?? 0).toBe(started + 1);
      // And still hold their places in the budget.
      await expect(connect('?stream=public', '192.0.2.2').opened).rejects.toThrow('upgrade refused: 429');
    } finally {
      home.socket.close();
      tagged.socket.close();
    }
  }, 90_000);
});
