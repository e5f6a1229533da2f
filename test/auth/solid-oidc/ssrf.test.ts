/**
 * Server-side request forgery through Solid-OIDC credentials: an issuer or a WebID on loopback, on the cloud
 * metadata address, or redirecting to either, is refused without a request reaching it. The issuer used to
 * get that far is hosted in the pod itself (read through the server, no network), as is a local WebID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundFetch, type SingleHopFetch } from '../../../src/http/outbound-fetch.ts';
import type { Platform } from '../../../src/platform.ts';
import { nodeOutboundFetch } from '../../../runtimes/node/outbound-fetch.ts';
import { BASE } from '../../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl, type PodWorld } from '../../wac/pods.ts';
import { dpopClient, startTestIssuer, type DpopClient, type TestIssuer } from './issuer.ts';

const PRIVATE = `${BASE}/alice/private/`;
const POD_ISSUER = `${BASE}/alice/public`;

let remote: TestIssuer;
let client: DpopClient;

beforeAll(async () => {
  remote = await startTestIssuer();
  remote.profile('/people/bob', [remote.issuer, POD_ISSUER]);
  client = await dpopClient();
});
afterAll(() => remote.close());

/** A pod whose public container serves an issuer's discovery document and keys, and a WebID card listing it. */
async function worldWith(platform: Partial<Platform>, grantees: readonly string[]): Promise<PodWorld> {
  const world = await podWorld(['alice'], {}, platform);
  const json = (body: unknown) => ({ method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const put = async (path: string, init: RequestInit) => expect((await world.as('alice', path, init)).status).toBeLessThan(300);
  await put('/alice/public/.well-known/openid-configuration', json({ issuer: POD_ISSUER, jwks_uri: `${POD_ISSUER}/jwks` }));
  await put('/alice/public/jwks', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: remote.jwks });
  const card = { '@id': '#me', 'http://www.w3.org/ns/solid/terms#oidcIssuer': { '@id': POD_ISSUER } };
  await put('/alice/public/card', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(card) });
  const rules = grantees.map((webId, i) => `<#g${i}> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:mode acl:Read.\n`).join('');
  await put('/alice/private/.acl', putTurtleAcl(ownerRule('../#me') + rules));
  return world;
}

async function read(world: PodWorld, token: string): Promise<Response> {
  return world.app.fetch(new Request(PRIVATE, { headers: { authorization: `DPoP ${token}`, dpop: await client.proof('GET', PRIVATE) } }));
}

async function expectRefused(response: Response, reason: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(((await response.json()) as { detail: string }).detail).toMatch(reason);
}

const tokenFor = (webId: string, iss: string) => remote.token({ iss, webid: webId, cnf: { jkt: client.jkt } });

describe('Solid-OIDC without --allow-private-fetch', () => {
  it('accepts a WebID and an issuer on the server itself, read without any outbound fetch', async () => {
    const webId = `${POD_ISSUER}/card#me`;
    const world = await worldWith({}, [webId]);
    expect((await read(world, await tokenFor(webId, POD_ISSUER))).status).toBe(200);
  });

  it('reads local WebID profiles as an anonymous reader would: a private profile does not count', async () => {
    const webId = `${BASE}/alice/private/card#me`;
    const world = await worldWith({}, [webId]);
    const card = { '@id': '#me', 'http://www.w3.org/ns/solid/terms#oidcIssuer': { '@id': POD_ISSUER } };
    await world.as('alice', '/alice/private/card', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(card) });
    await expectRefused(await read(world, await tokenFor(webId, POD_ISSUER)), /cannot be read: .* answered 401/);
  });

  it('refuses an issuer on 127.0.0.1 or 169.254.169.254 without a request reaching it', async () => {
    const world = await worldWith({ fetch: nodeOutboundFetch({ allowPrivate: false }) }, []);
    await expectRefused(await read(world, await tokenFor(`${POD_ISSUER}/card#me`, remote.issuer)), /127\.0\.0\.1 is a loopback address/);
    await expectRefused(await read(world, await tokenFor(`${POD_ISSUER}/card#me`, 'http://169.254.169.254')), /169\.254\.169\.254 is a link-local address/);
    expect(remote.requests).toEqual([]);
  });

  it('refuses a WebID on 127.0.0.1 or 169.254.169.254 without a request reaching it', async () => {
    const onLoopback = `${remote.origin}/people/bob#me`;
    const onMetadata = 'http://169.254.169.254/latest/meta-data/card#me';
    const world = await worldWith({ fetch: nodeOutboundFetch({ allowPrivate: false }) }, [onLoopback, onMetadata]);
    await expectRefused(await read(world, await tokenFor(onLoopback, POD_ISSUER)), /127\.0\.0\.1 is a loopback address/);
    await expectRefused(await read(world, await tokenFor(onMetadata, POD_ISSUER)), /169\.254\.169\.254 is a link-local address/);
    expect(remote.requests).toEqual([]);
  });

  it('refuses a WebID or an issuer that redirects to loopback or to the metadata address, asking only the first hop', async () => {
    const asked: string[] = [];
    const redirects: Record<string, string> = {
      'https://webid.example/bob': `${remote.origin}/people/bob`,
      'https://metadata.example/bob': 'http://169.254.169.254/latest/meta-data/',
      'https://idp.example/.well-known/openid-configuration': `${remote.origin}/.well-known/openid-configuration`,
    };
    const hop: SingleHopFetch = async (url) => {
      asked.push(url.href);
      const location = redirects[url.href];
      return location ? new Response(null, { status: 302, headers: { location } }) : new Response('not found', { status: 404 });
    };
    const world = await worldWith({ fetch: outboundFetch(hop, { allowPrivate: false }) }, ['https://webid.example/bob#me', 'https://metadata.example/bob#me']);
    await expectRefused(await read(world, await tokenFor('https://webid.example/bob#me', POD_ISSUER)), /127\.0\.0\.1 is a loopback address/);
    await expectRefused(await read(world, await tokenFor('https://metadata.example/bob#me', POD_ISSUER)), /169\.254\.169\.254 is a link-local address/);
    await expectRefused(await read(world, await tokenFor(`${POD_ISSUER}/card#me`, 'https://idp.example')), /127\.0\.0\.1 is a loopback address/);
    expect(asked).toEqual(['https://webid.example/bob', 'https://metadata.example/bob', 'https://idp.example/.well-known/openid-configuration']);
    expect(remote.requests).toEqual([]);
  });
});

describe('documents read from the server itself', () => {
  it('answer only requests to their origin: a request under a spoofed Host leaves nothing behind for others', async () => {
    const victim = 'http://victim.example';
    const victimWebId = `${victim}/alice/public/card#me`;
    const asked: string[] = [];
    const hop: SingleHopFetch = async (url) => (asked.push(url.href), new Response('not found', { status: 404 }));
    const world = await worldWith({ fetch: outboundFetch(hop, { allowPrivate: false }) }, [victimWebId]);
    // The pod's owner poses as the victim's issuer: under the spoofed host, the pod's documents are the victim's.
    const discovery = { issuer: `${victim}/alice/public`, jwks_uri: `${victim}/alice/public/jwks` };
    await world.as('alice', '/alice/public/.well-known/openid-configuration', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(discovery) });
    const card = { '@id': '#me', 'http://www.w3.org/ns/solid/terms#oidcIssuer': { '@id': '../public' } };
    await world.as('alice', '/alice/public/card', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(card) });
    const token = await tokenFor(victimWebId, `${victim}/alice/public`);
    const spoofedUrl = `${victim}/alice/private/`;
    const spoofed = await world.app.fetch(new Request(spoofedUrl, { headers: { authorization: `DPoP ${token}`, dpop: await client.proof('GET', spoofedUrl) } }));
    expect(spoofed.status, await spoofed.clone().text()).toBe(200);
    expect(asked).toEqual([]);
    // The same token at the server's real name: the victim's issuer must now be asked, and it knows nothing.
    await expectRefused(await read(world, token), /keys of the issuer http:\/\/victim\.example\/alice\/public are not available: .*answered 404/);
    expect(asked).toEqual([`${victim}/alice/public/.well-known/openid-configuration`]);
  });
});
