import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutboundFetch } from '../../../runtimes/node/outbound-fetch.ts';
import { BASE } from '../../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl, type PodWorld } from '../../wac/pods.ts';
import { base64OfJson, nostrSigner, type NostrSigner } from './signer.ts';

const PRIVATE = `${BASE}/alice/private/`;
const NOTE = `${PRIVATE}note.txt`;

let world: PodWorld;
let key: NostrSigner;
let linked: NostrSigner;
let oneWay: NostrSigner;
let withCredentials: NostrSigner;
let documents: Server;
let documentsOrigin: string;
/** What the test resolver and profile server answer, by path. */
const served = new Map<string, { type: string; body: string }>();

beforeAll(async () => {
  documents = createServer((req, res) => {
    const document = served.get(req.url ?? '');
    if (!document) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': document.type }).end(document.body);
  });
  await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
  const address = documents.address() as { port: number };
  documentsOrigin = `http://127.0.0.1:${address.port}`;
  key = nostrSigner();
  linked = nostrSigner();
  oneWay = nostrSigner();
  withCredentials = nostrSigner();
  const bob = `${documentsOrigin}/bob#me`;
  const carol = `${documentsOrigin}/carol#me`;
  for (const [signer, webId] of [
    [linked, bob],
    [oneWay, carol],
  ] as const) {
    served.set(`/did/${signer.pubkey}.json`, { type: 'application/did+json', body: JSON.stringify({ id: signer.did, alsoKnownAs: [webId] }) });
  }
  // Dave's WebID as his DID document writes it carries a user name and password; his profile names it back.
  const dave = `${documentsOrigin.replace('http://', 'http://dave:secret@')}/dave#me`;
  served.set(`/did/${withCredentials.pubkey}.json`, { type: 'application/did+json', body: JSON.stringify({ id: withCredentials.did, alsoKnownAs: [dave] }) });
  served.set('/dave', { type: 'text/turtle', body: `<${dave}> <http://www.w3.org/2002/07/owl#sameAs> <${withCredentials.did}>.` });
  served.set('/bob', { type: 'text/turtle', body: `<#me> <http://www.w3.org/2002/07/owl#sameAs> <${linked.did}>.` });
  // Carol's profile does not name the key back: the link holds one way only.
  served.set('/carol', { type: 'text/turtle', body: '<#me> a <http://xmlns.com/foaf/0.1/Person>.' });

  world = await podWorld(['alice'], { nostrDidResolver: `${documentsOrigin}/did/` }, { fetch: nodeOutboundFetch({ allowPrivate: true }) });
  const acl =
    ownerRule('../#me') +
    `<#key> a acl:Authorization; acl:agent <${key.did}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.\n` +
    `<#bob> a acl:Authorization; acl:agent <${bob}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n` +
    `<#carol> a acl:Authorization; acl:agent <${carol}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
  expect((await world.as('alice', '/alice/private/.acl', putTurtleAcl(acl))).status).toBe(204);
  expect((await world.as('alice', '/alice/private/note.txt', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'original' })).status).toBe(201);
});
afterAll(() => new Promise<void>((resolve) => documents.close(() => resolve())));

const send = (url: string, authorization: string, init: RequestInit = {}) => world.app.fetch(new Request(url, { ...init, headers: { ...(init.headers as Record<string, string>), authorization } }));

async function expectRefused(response: Response, reason: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(response.headers.get('www-authenticate')).toMatch(/, Nostr realm="http:\/\/pod\.test", error="invalid_token", error_description="[^"]+"$/);
  expect(((await response.json()) as { detail: string }).detail).toMatch(reason);
}

const noteText = async () => (await world.as('alice', '/alice/private/note.txt')).text();

describe('NIP-98 HTTP authentication', () => {
  it('lets the key named as acl:agent read, and refuses anonymous callers', async () => {
    expect((await world.app.fetch(new Request(NOTE))).status).toBe(401);
    const response = await send(NOTE, key.authorization(NOTE, 'GET'));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('original');
    expect(response.headers.get('wac-allow')).toBe('user="read write append",public=""');
  });

  it('accepts the same URL spelled differently (host case, default port)', async () => {
    expect((await send(NOTE, key.authorization('HTTP://POD.TEST:80/alice/private/note.txt', 'get'))).status).toBe(200);
  });

  it('writes with a payload tag that hashes the body, and the handler stores the body as sent', async () => {
    const body = 'written with a Nostr key';
    const response = await send(NOTE, key.authorization(NOTE, 'PUT', { body }), { method: 'PUT', headers: { 'content-type': 'text/plain' }, body });
    expect(response.status).toBe(204);
    expect(await noteText()).toBe(body);
  });

  it('refuses a body that is not the one signed, or a body without a payload tag, and stores nothing', async () => {
    const before = await noteText();
    const put = (authorization: string) => send(NOTE, authorization, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'evil' });
    await expectRefused(await put(key.authorization(NOTE, 'PUT', { body: 'harmless' })), /payload tag/);
    await expectRefused(await put(key.authorization(NOTE, 'PUT')), /payload tag/);
    expect(await noteText()).toBe(before);
  });

  it('needs no payload tag for an empty body (every DELETE through a server has a body stream)', async () => {
    const url = `${PRIVATE}empty-delete.txt`;
    expect((await world.as('alice', '/alice/private/empty-delete.txt', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(201);
    expect((await send(url, key.authorization(url, 'DELETE'), { method: 'DELETE', body: '' })).status).toBe(204);
  });

  it('refuses a body over the size limit before hashing it all', async () => {
    const small = await podWorld(['alice'], { public: false, maxBodySize: '1KB' });
    const url = `${BASE}/alice/big.txt`;
    const body = 'x'.repeat(2048);
    const response = await small.app.fetch(new Request(url, { method: 'PUT', headers: { 'content-type': 'text/plain', authorization: key.authorization(url, 'PUT', { body }) }, body }));
    await expectRefused(response, /too large/);
  });

  it('refuses an event used twice', async () => {
    const authorization = key.authorization(NOTE, 'GET');
    expect((await send(NOTE, authorization)).status).toBe(200);
    await expectRefused(await send(NOTE, authorization), /used already/);
  });

  it('refuses events for another URL or method, of another kind, too old or from the future', async () => {
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await send(NOTE, key.authorization(`${PRIVATE}other.txt`, 'GET')), /u tag/);
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'DELETE')), /method tag/);
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'GET', { kind: 22242 })), /kind 27235/);
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'GET', { createdAt: now - 120 })), /created_at/);
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'GET', { createdAt: now + 120 })), /created_at/);
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'GET', { tags: [['method', 'GET']] })), /u tag/);
  });

  it('refuses a changed event, a bad signature and what is no event at all', async () => {
    await expectRefused(await send(NOTE, key.authorization(NOTE, 'GET', { tamper: true })), /not authentic: event id/);
    const event = JSON.parse(atob(key.authorization(NOTE, 'GET').slice('Nostr '.length))) as { sig: string };
    const badSignature = { ...event, sig: (event.sig[0] === '0' ? '1' : '0') + event.sig.slice(1) };
    await expectRefused(await send(NOTE, `Nostr ${base64OfJson(badSignature)}`), /signature does not verify/);
    await expectRefused(await send(NOTE, 'Nostr not-base64!'), /not base64 of a JSON event/);
    await expectRefused(await send(NOTE, `Nostr ${base64OfJson({ kind: 27235 })}`), /malformed: id/);
    await expectRefused(await send(NOTE, 'Nostr'), /one event/);
  });

  it('refuses a bad event for a write and changes nothing', async () => {
    const before = await noteText();
    const response = await send(NOTE, key.authorization(NOTE, 'DELETE', { tamper: true }), { method: 'DELETE' });
    await expectRefused(response, /not authentic/);
    expect(await noteText()).toBe(before);
  });
});

describe('a Nostr key linked to a WebID', () => {
  it('is that WebID when the DID document lists it and the profile says owl:sameAs the DID', async () => {
    const response = await send(NOTE, linked.authorization(NOTE, 'GET'));
    expect(response.status).toBe(200);
    expect(response.headers.get('wac-allow')).toBe('user="read",public=""');
  });

  it('is the key alone when the WebID the DID document lists has a user name or password in it', async () => {
    const response = await send(NOTE, withCredentials.authorization(NOTE, 'GET'));
    expect(response.status).toBe(403);
    const detail = ((await response.json()) as { detail: string }).detail;
    expect(detail).toContain(withCredentials.did);
    expect(detail).not.toContain('dave');
  });

  it('is the key alone when the profile does not name the key back', async () => {
    const response = await send(NOTE, oneWay.authorization(NOTE, 'GET'));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toContain(oneWay.did);
  });
});
