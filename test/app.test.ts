import { describe, expect, it } from 'vitest';
import { SOCKET_SWEEP } from '../src/features/due-work.ts';
import type { SocketLike } from '../src/notifications/socket.ts';
import { CLOSE_IDLE } from '../src/sockets/guard.ts';
import { BASE, makeApp } from './support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from './wac/pods.ts';

describe('queued work a runtime runs (Platform.scheduleDue, App.runDue)', () => {
  it('is asked for by name, and a run does only the work it names', async () => {
    let now = 1_000_000;
    const asked: string[] = [];
    const { app } = makeApp({ nostr: true, socketIdleTimeout: '10s' }, undefined, { now: () => now, scheduleDue: (_inMs, work) => asked.push(work) });
    await app.init();
    const answer = await app.upgradeWebSocket!(new Request(`${BASE}/relay`, { headers: { upgrade: 'websocket' } }));
    if (!answer || !('accept' in answer)) throw new Error('the relay refused the upgrade');
    const closes: number[] = [];
    const raw: SocketLike = { send: () => {}, close: (code) => closes.push(code) };
    answer.accept(raw);
    expect(asked).toEqual([SOCKET_SWEEP]);

    // The socket subscribes to nothing and says nothing: it is idle once the time has passed.
    now += 11_000;
    expect(await app.runDue!(['activitypub'])).toEqual([]);
    expect(closes).toEqual([]);
    await app.runDue!([SOCKET_SWEEP]);
    expect(closes).toEqual([CLOSE_IDLE]);
  });
});

/** What a client sees of an answer, but the validators and times, which differ between two servers (and so a listing's length). */
async function seen(response: Response) {
  const text = await response.text();
  const body = text.replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, '<time>').replace(/stat:mtime [\d.]+/g, 'stat:mtime <time>');
  const varying = ['etag', 'last-modified', 'date', ...(body === text ? [] : ['content-length'])];
  const headers = [...response.headers].filter(([name]) => !varying.includes(name));
  return { status: response.status, headers: headers.sort(), body };
}

const ORIGIN = { origin: 'https://app.example' };

/** Requests on LDP resources: found, absent, refused, malformed, with and without an Origin, every method. */
const requests: [string, string | null, string, RequestInit?][] = [
  ['GET as owner', 'alice', '/alice/shared/doc'],
  ['GET with an Origin', 'alice', '/alice/shared/doc', { headers: ORIGIN }],
  ['GET refused', null, '/alice/shared/doc', { headers: ORIGIN }],
  ['GET public', null, '/alice/public/doc'],
  ['GET absent', 'alice', '/alice/shared/none'],
  ['GET container', 'alice', '/alice/shared/', { headers: { accept: 'text/turtle' } }],
  ['GET not acceptable', 'alice', '/alice/shared/', { headers: { accept: 'image/png' } }],
  ['GET a range', 'alice', '/alice/shared/doc', { headers: { range: 'bytes=0-1' } }],
  ['GET a range outside', 'alice', '/alice/shared/doc', { headers: { range: 'bytes=90-99' } }],
  ['HEAD as owner', 'alice', '/alice/shared/doc', { method: 'HEAD' }],
  ['HEAD refused', null, '/alice/shared/doc', { method: 'HEAD' }],
  ['HEAD absent', 'alice', '/alice/shared/none', { method: 'HEAD' }],
  ['OPTIONS preflight', null, '/alice/shared/doc', { method: 'OPTIONS', headers: { ...ORIGIN, 'access-control-request-method': 'PUT' } }],
  ['PUT', 'alice', '/alice/shared/new', putText('new')],
  ['PUT refused', null, '/alice/shared/new2', putText('new')],
  ['PATCH of an unknown type', 'alice', '/alice/shared/doc', { method: 'PATCH', headers: { 'content-type': 'text/plain' }, body: 'x' }],
  ['POST', 'alice', '/alice/shared/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'posted' }, body: 'p' }],
  ['DELETE', 'alice', '/alice/shared/new', { method: 'DELETE' }],
  ['an unknown method', 'alice', '/alice/shared/doc', { method: 'BREW' }],
  ['a bad path', 'alice', '/alice/%ZZ'],
];

describe('LDP answers made without Hono’s chain', () => {
  it('are those Hono’s chain makes: same status, headers and body for every method and error', async () => {
    // --allowed-hosts adds a middleware, so that server's LDP requests go through Hono's chain.
    const worlds = await Promise.all([podWorld(['alice'], { conneg: true }), podWorld(['alice'], { conneg: true, allowedHosts: 'pod.test' })]);
    for (const world of worlds) {
      expect((await world.as('alice', '/alice/shared/doc', putText('hello, world'))).status).toBe(201);
      expect((await world.as('alice', '/alice/public/doc', putText('public'))).status).toBe(201);
      const publicRead = `<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
      expect((await world.as('alice', '/alice/public/.acl', putTurtleAcl(ownerRule(`${BASE}/alice/#me`) + publicRead))).ok).toBe(true);
    }
    for (const [name, who, path, init] of requests) {
      const [direct, chained] = await Promise.all(worlds.map(async (world) => seen(await world.as(who, path, init))));
      expect(direct, name).toEqual(chained);
    }
  });
});
