import { Parser } from 'n3';
import { describe, expect, it } from 'vitest';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from '../wac/pods.ts';
import { WAIT_MS } from './support.ts';

const REL = 'http://www.w3.org/ns/solid/terms#updatesViaStreamingHttp2023';
const AS = 'https://www.w3.org/ns/activitystreams#';
const bob = `${BASE}/bob/#me`;

/** The receiveFrom URL a resource answer links to. */
function streamOf(response: Response): string {
  const link = (response.headers.get('link') ?? '').split(', ').find((part) => part.includes(REL));
  if (!link) throw new Error(`no ${REL} link in ${response.headers.get('link')}`);
  return /^<([^>]+)>/.exec(link)![1]!;
}

/** Reads a notification stream chunk by chunk: in the app each notification is one chunk. */
class StreamReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
  }
  /** The next chunk as text, or null once the stream ended; fails after WAIT_MS. */
  async next(): Promise<string | null> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no chunk in time')), WAIT_MS)));
    try {
      const { done, value } = await Promise.race([this.#reader.read(), timeout]);
      return done ? null : this.#decoder.decode(value);
    } finally {
      clearTimeout(timer);
    }
  }
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** The activity type and object of a Turtle notification. */
function turtleActivity(text: string): { type: string; object: string; state?: string } {
  const quads = new Parser().parse(text);
  const value = (predicate: string) => quads.find((q) => q.predicate.value === predicate)?.object.value;
  const type = value('http://www.w3.org/1999/02/22-rdf-syntax-ns#type')!.slice(AS.length);
  const state = value('http://www.w3.org/ns/solid/notifications#state');
  return { type, object: value(`${AS}object`)!, ...(state !== undefined && { state }) };
}

const sharing = (reader: string | null) =>
  putTurtleAcl(ownerRule('../#me') + (reader ? `<#reader> a acl:Authorization; acl:agent <${reader}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n` : ''));

describe('StreamingHTTPChannel2023', () => {
  it('links every resource, and a missing one, to its stream', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    expect(streamOf(await world.as('alice', '/alice/'))).toBe(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/`)}`);
    expect(streamOf(await world.as('alice', '/alice/nothing-yet'))).toBe(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/nothing-yet`)}`);
    const off = await podWorld(['alice']);
    expect((await off.as('alice', '/alice/')).headers.get('link')).not.toContain(REL);
  });

  it('needs Read when connecting, then streams the current state and each change, in Turtle by default', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const created = await world.as('alice', '/alice/doc', putText());
    const receiveFrom = streamOf(created);
    expect((await world.app.fetch(new Request(receiveFrom))).status).toBe(401);
    const response = await world.app.fetch(new Request(receiveFrom, { headers: { authorization: `Bearer ${world.tokens.alice}` } }));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/turtle');
    const stream = new StreamReader(response.body!);
    expect(turtleActivity((await stream.next())!)).toEqual({ type: 'Update', object: `${BASE}/alice/doc`, state: created.headers.get('etag') });
    const updated = await world.as('alice', '/alice/doc', putText('two'));
    expect(turtleActivity((await stream.next())!)).toEqual({ type: 'Update', object: `${BASE}/alice/doc`, state: updated.headers.get('etag') });
    await world.as('alice', '/alice/doc', { method: 'DELETE' });
    expect(turtleActivity((await stream.next())!)).toEqual({ type: 'Delete', object: `${BASE}/alice/doc` });
    await stream.cancel();
  });

  it('streams JSON-LD, one notification a line, when the reader prefers it; Add and Remove on a container', async () => {
    const world = await podWorld(['alice'], { notifications: true });
    const receiveFrom = streamOf(await world.as('alice', '/alice/'));
    const response = await world.app.fetch(new Request(receiveFrom, { headers: { authorization: `Bearer ${world.tokens.alice}`, accept: 'application/ld+json' } }));
    expect(response.headers.get('content-type')).toBe('application/ld+json');
    const stream = new StreamReader(response.body!);
    expect(JSON.parse((await stream.next())!)).toMatchObject({ type: 'Update', object: `${BASE}/alice/` });
    await world.as('alice', '/alice/new', putText());
    const added = await stream.next();
    expect(added!.endsWith('\n')).toBe(true);
    expect(JSON.parse(added!)).toMatchObject({ type: 'Add', object: `${BASE}/alice/new`, target: `${BASE}/alice/` });
    await stream.cancel();
  });

  it('ends the stream, before telling anything new, once the reader may no longer read the topic', async () => {
    const world = await podWorld(['alice', 'bob'], { notifications: true });
    expect((await world.as('alice', '/alice/shared/.acl', sharing(bob))).status).toBe(201);
    const receiveFrom = streamOf(await world.as('bob', '/alice/shared/'));
    const response = await world.app.fetch(new Request(receiveFrom, { headers: { authorization: `Bearer ${world.tokens.bob}`, accept: 'application/ld+json' } }));
    expect(response.status).toBe(200);
    const stream = new StreamReader(response.body!);
    await stream.next();
    await world.as('alice', '/alice/shared/first', putText());
    expect(JSON.parse((await stream.next())!)).toMatchObject({ type: 'Add', object: `${BASE}/alice/shared/first` });
    expect((await world.as('alice', '/alice/shared/.acl', sharing(null))).status).toBe(204);
    await world.as('alice', '/alice/shared/second', putText());
    expect(await stream.next()).toBeNull();
    expect((await world.app.fetch(new Request(receiveFrom, { headers: { authorization: `Bearer ${world.tokens.bob}` } }))).status).toBe(403);
  });

  it('refuses topics elsewhere and the server’s own files, answers a browser’s preflight, and HEAD without opening a stream', async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true });
    const at = (topic: string) => `${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(topic)}`;
    expect((await world.app.fetch(new Request(at('http://elsewhere.example/doc')))).status).toBe(404);
    expect((await world.app.fetch(new Request(at(`${BASE}/alice/.quota.json`)))).status).toBe(404);
    expect((await world.app.fetch(new Request(`${BASE}/.notifications/StreamingHTTPChannel2023/%E0%A4%A`))).status).toBe(404);
    const preflight = await world.app.fetch(new Request(at(`${BASE}/alice/`), { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } }));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('authorization');
    const head = await world.app.fetch(new Request(at(`${BASE}/alice/`), { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(head.body).toBeNull();
  });

  it('bounds open streams per client address (429) and in all (503) with the socket budget, and gives places back when readers leave', async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true, maxSocketsPerAddress: 2, maxSockets: 3 }, {
      clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined,
    });
    const open = (peer: string) => world.app.fetch(new Request(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/`)}`, { headers: { 'x-test-peer': peer } }));
    const first = await open('10.0.0.1');
    expect((await open('10.0.0.1')).status).toBe(200);
    const third = await open('10.0.0.1');
    expect(third.status).toBe(429);
    expect(third.headers.get('content-type')).toBe('application/problem+json');
    expect((await third.json()).type).toBe('urn:svc:problem:too-many-sockets');
    expect((await open('10.0.0.2')).status).toBe(200);
    const full = await open('10.0.0.3');
    expect(full.status).toBe(503);
    expect((await full.json()).type).toBe('urn:svc:problem:socket-capacity');
    await first.body!.cancel();
    expect((await open('10.0.0.3')).status).toBe(200);
  });

  it('cuts off the reader furthest behind once the unread bytes of every stream and socket pass --max-socket-buffers', async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true, maxSocketBuffers: '8KB' });
    const open = async () => new StreamReader((await world.app.fetch(new Request(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/`)}`))).body!);
    const behind = await open();
    const reading = await open();
    await reading.next();
    // Each notification is a few hundred bytes: far from one stream's 1 MB, but the two together pass 8 KB.
    for (let i = 0; i < 40; i++) {
      expect((await world.as('alice', `/alice/note${i}`, putText())).status).toBe(201);
      expect(turtleActivity((await reading.next())!)).toMatchObject({ type: 'Add', object: `${BASE}/alice/note${i}` });
    }
    await expect(behind.next()).rejects.toThrow('reader too slow');
    await reading.cancel();
  });

  it('ends every stream when the server stops', async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true });
    const response = await world.app.fetch(new Request(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/`)}`));
    const stream = new StreamReader(response.body!);
    await stream.next();
    world.app.closeStreams();
    expect(await stream.next()).toBeNull();
  });
});

describe('streams and WebSockets', () => {
  it('share one budget per client address: a stream holds a place a WebSocket then cannot have, and gives it back', async () => {
    const world = await podWorld(['alice'], { notifications: true, public: true, maxSocketsPerAddress: 2 }, {
      clientAddress: (request) => request.headers.get('x-test-peer') ?? undefined,
    });
    const peer = { 'x-test-peer': '10.0.0.1' };
    const open = () => world.app.fetch(new Request(`${BASE}/.notifications/StreamingHTTPChannel2023/${encodeURIComponent(`${BASE}/alice/`)}`, { headers: peer }));
    const stream = await open();
    expect(stream.status).toBe(200);
    const socket = await world.app.upgradeWebSocket!(new Request(`${BASE}/.notifications`, { headers: peer }));
    expect(socket && 'accept' in socket).toBe(true);
    const refused = await open();
    expect(refused.status).toBe(429);
    expect((await refused.json()).type).toBe('urn:svc:problem:too-many-sockets');
    const another = await world.app.upgradeWebSocket!(new Request(`${BASE}/.notifications`, { headers: peer }));
    expect(another && 'refuse' in another && another.refuse.status).toBe(429);
    await stream.body!.cancel();
    expect((await open()).status).toBe(200);
  });
});
