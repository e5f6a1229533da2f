import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeOutboundFetch } from '../../../runtimes/node/outbound-fetch.ts';
import { BASE } from '../../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl, type PodWorld } from '../../wac/pods.ts';
import { dpopClient, startTestIssuer, type DpopClient, type TestIssuer } from './issuer.ts';

const PRIVATE = `${BASE}/alice/private/`;

let issuer: TestIssuer;
let world: PodWorld;
let client: DpopClient;
let webId: string;

/** A world whose pod alice grants Read on /alice/private/ to a WebID served by the test issuer's server. */
beforeAll(async () => {
  issuer = await startTestIssuer();
  webId = issuer.profile('/people/bob', [issuer.issuer]);
  world = await podWorld(['alice'], {}, { fetch: nodeOutboundFetch({ allowPrivate: true }) });
  const acl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
  const put = await world.as('alice', '/alice/private/.acl', putTurtleAcl(acl));
  expect(put.status).toBe(204);
  client = await dpopClient();
});
afterAll(() => issuer.close());

async function dpopRequest(url: string, token: string, proof: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `DPoP ${token}`);
  headers.set('dpop', proof);
  return world.app.fetch(new Request(url, { ...init, headers }));
}

async function expectRefused(response: Response, code: 'invalid_token' | 'invalid_dpop_proof', reason: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const challenge = response.headers.get('www-authenticate')!;
  expect(challenge).toMatch(new RegExp(`DPoP realm="${BASE}", error="${code}", error_description="[^"]*"$`));
  expect(challenge).toMatch(reason);
  const problem = (await response.json()) as { status: number; detail: string };
  expect(problem.status).toBe(401);
  expect(problem.detail).toMatch(reason);
}

const boundToken = (claims: Record<string, unknown> = {}, options?: Parameters<TestIssuer['token']>[1]) =>
  issuer.token({ webid: webId, cnf: { jkt: client.jkt }, ...claims }, options);

describe('DPoP-bound Solid-OIDC tokens', () => {
  it('read a private resource whose ACL grants the WebID, with a fresh proof on each request', async () => {
    const token = await boundToken();
    const first = await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE));
    expect(first.status).toBe(200);
    const withAth = await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { accessToken: token }));
    expect(withAth.status).toBe(200);
    expect(withAth.headers.get('wac-allow')).toBe('user="read",public=""');
    // Discovery and keys are fetched once; the profile once within its cache lifetime.
    expect(issuer.requests.filter((line) => line.includes('openid-configuration'))).toHaveLength(1);
    expect(issuer.requests.filter((line) => line.includes('/jwks'))).toHaveLength(1);
    expect(issuer.requests.filter((line) => line.includes('/people/bob'))).toHaveLength(1);
  });

  it('take the WebID of the webid claim as a URL writes it, so an ACL naming it matches', async () => {
    const spelledOtherwise = ` ${webId.replace('http://', 'HTTP://')}`;
    expect(spelledOtherwise).not.toBe(webId);
    const token = await boundToken({ webid: spelledOtherwise });
    const response = await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE));
    expect(response.status).toBe(200);
    expect(response.headers.get('wac-allow')).toBe('user="read",public=""');
  });

  it('compare htu without query and fragment, after normalisation', async () => {
    const token = await boundToken();
    const proof = await client.proof('GET', 'HTTP://POD.TEST:80/alice/private/#top');
    expect((await dpopRequest(`${PRIVATE}?page=2`, token, proof)).status).toBe(200);
  });

  it('refuse a proof made for another method or another URL', async () => {
    const token = await boundToken();
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('POST', PRIVATE)), 'invalid_dpop_proof', /made for POST, not GET/);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', `${BASE}/alice/public/`)), 'invalid_dpop_proof', /made for/);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', 'https://pod.test/alice/private/')), 'invalid_dpop_proof', /made for/);
  });

  it('check a request\'s path before its credentials: a refused path (400) costs no issuer lookup', async () => {
    const other = await startTestIssuer();
    try {
      const token = await other.token({ webid: other.profile('/people/carol', [other.issuer]), cnf: { jkt: client.jkt } });
      const refused = `${BASE}/alice/a%2fb`;
      expect((await dpopRequest(refused, token, await client.proof('GET', refused))).status).toBe(400);
      expect(other.requests).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('refuse a replayed proof', async () => {
    const token = await boundToken();
    const proof = await client.proof('GET', PRIVATE);
    expect((await dpopRequest(PRIVATE, token, proof)).status).toBe(200);
    await expectRefused(await dpopRequest(PRIVATE, token, proof), 'invalid_dpop_proof', /used before/);
  });

  it('refuse a stale proof and one from the future', async () => {
    const token = await boundToken();
    const now = Math.floor(Date.now() / 1000);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { claims: { iat: now - 301 } })), 'invalid_dpop_proof', /older than 300 seconds/);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { claims: { iat: now + 120 } })), 'invalid_dpop_proof', /future/);
  });

  it('refuse a proof whose ath is not the hash of the token', async () => {
    const token = await boundToken();
    const other = await boundToken({ jti: 'another token' });
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { accessToken: other })), 'invalid_dpop_proof', /ath/);
  });

  it('refuse a proof signed by a key other than the one the token is bound to', async () => {
    const token = await boundToken();
    const thief = await dpopClient();
    await expectRefused(await dpopRequest(PRIVATE, token, await thief.proof('GET', PRIVATE)), 'invalid_token', /cnf\.jkt/);
  });

  it('refuse proofs with alg none, a symmetric alg, a private key or the wrong typ', async () => {
    const token = await boundToken();
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { htm: 'GET', htu: PRIVATE, jti: crypto.randomUUID(), iat: Math.floor(Date.now() / 1000) };
    const unsigned = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: client.jwk })}.${b64(claims)}.`;
    await expectRefused(await dpopRequest(PRIVATE, token, unsigned), 'invalid_dpop_proof', /exactly one proof/);
    const noneSigned = `${b64({ alg: 'none', typ: 'dpop+jwt', jwk: client.jwk })}.${b64(claims)}.c2ln`;
    await expectRefused(await dpopRequest(PRIVATE, token, noneSigned), 'invalid_dpop_proof', /algorithm none is not accepted/);
    const hs256 = `${b64({ alg: 'HS256', typ: 'dpop+jwt', jwk: { kty: 'oct', k: 'c2VjcmV0' } })}.${b64(claims)}.c2ln`;
    await expectRefused(await dpopRequest(PRIVATE, token, hs256), 'invalid_dpop_proof', /algorithm HS256 is not accepted/);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { header: { jwk: { ...client.jwk, d: 'AAAA' } } })), 'invalid_dpop_proof', /public/);
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE, { header: { typ: 'JWT' } })), 'invalid_dpop_proof', /typ/);
    await expectRefused(await dpopRequest(PRIVATE, token, 'not a proof'), 'invalid_dpop_proof', /exactly one proof/);
    const missing = await world.app.fetch(new Request(PRIVATE, { headers: { authorization: `DPoP ${token}` } }));
    await expectRefused(missing, 'invalid_dpop_proof', /needs a DPoP proof/);
  });

  it('refuse an expired token, a token for another audience, and an unsigned token', async () => {
    const expired = await boundToken({}, { expiresInSeconds: -60 });
    await expectRefused(await dpopRequest(PRIVATE, expired, await client.proof('GET', PRIVATE)), 'invalid_token', /expired/);
    const elsewhere = await boundToken({ aud: 'https://other.example' });
    await expectRefused(await dpopRequest(PRIVATE, elsewhere, await client.proof('GET', PRIVATE)), 'invalid_token', /aud/);
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const now = Math.floor(Date.now() / 1000);
    const payload = { iss: issuer.issuer, aud: 'solid', webid: webId, cnf: { jkt: client.jkt }, exp: now + 300 };
    const none = `${b64({ alg: 'none' })}.${b64(payload)}.c2ln`;
    await expectRefused(await dpopRequest(PRIVATE, none, await client.proof('GET', PRIVATE)), 'invalid_token', /accepted asymmetric algorithm/);
  });

  it('refuse a token of an issuer that cannot be discovered', async () => {
    const token = await boundToken({ iss: `${issuer.origin}/nobody` });
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE)), 'invalid_token', /keys of the issuer .*\/nobody are not available/);
  });

  it('refuse a token whose WebID profile does not list its issuer', async () => {
    const stranger = issuer.profile('/people/carol', ['https://other-issuer.example/']);
    const token = await boundToken({ webid: stranger });
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE)), 'invalid_token', /does not list/);
  });

  it('refuse a token whose WebID has a user name or password in it, before fetching any profile', async () => {
    const withCredentials = webId.replace('http://', 'http://bob:secret@');
    const token = await boundToken({ webid: withCredentials });
    const profileFetches = issuer.requests.length;
    await expectRefused(await dpopRequest(PRIVATE, token, await client.proof('GET', PRIVATE)), 'invalid_token', /user name or password/);
    expect(issuer.requests.slice(profileFetches).filter((line) => line.includes('/people/'))).toEqual([]);
  });

  it('refuse a token without cnf.jkt or without a WebID', async () => {
    const unbound = await issuer.token({ webid: webId });
    await expectRefused(await dpopRequest(PRIVATE, unbound, await client.proof('GET', PRIVATE)), 'invalid_token', /not bound/);
    const anonymous = await issuer.token({ cnf: { jkt: client.jkt }, sub: 'bob' });
    await expectRefused(await dpopRequest(PRIVATE, anonymous, await client.proof('GET', PRIVATE)), 'invalid_token', /names no WebID/);
  });

  it('refuse a DPoP-bound token sent as Bearer, while the server’s own bearer tokens keep working', async () => {
    const token = await boundToken();
    const response = await world.app.fetch(new Request(PRIVATE, { headers: { authorization: `Bearer ${token}` } }));
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="http:\/\/pod.test", error="invalid_token", error_description="[^"]*bound to a key/);
    expect((await world.as('alice', '/alice/private/')).status).toBe(200);
  });

  it('change nothing when refused', async () => {
    const token = await boundToken();
    const url = `${BASE}/alice/private/note.txt`;
    const write = { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'written' };
    await expectRefused(await dpopRequest(url, token, await client.proof('GET', url), write), 'invalid_dpop_proof', /made for GET, not PUT/);
    expect(await world.storage.head('/alice/private/note.txt')).toBeNull();
  });
});

describe('what the verifier caches', () => {
  /** A world of its own with a clock the test moves, and proofs made at that clock's time. */
  async function clockedWorld() {
    const own = await startTestIssuer();
    const bob = own.profile('/people/bob', [own.issuer]);
    let offsetMs = 0;
    const now = () => Date.now() + offsetMs;
    const w = await podWorld(['alice'], {}, { fetch: nodeOutboundFetch({ allowPrivate: true }), now });
    const acl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${bob}>; acl:accessTo <./>; acl:mode acl:Read.\n`;
    await w.as('alice', '/alice/private/.acl', putTurtleAcl(acl));
    const read = async (token: string, signer: DpopClient = client) =>
      w.app.fetch(new Request(PRIVATE, { headers: { authorization: `DPoP ${token}`, dpop: await signer.proof('GET', PRIVATE, { claims: { iat: Math.floor(now() / 1000) } }) } }));
    const token = () => own.token({ webid: bob, cnf: { jkt: client.jkt } });
    return { own, read, token, advance: (ms: number) => (offsetMs += ms) };
  }

  it('fetches the issuer keys again for an unknown key id, but not more than every 30 seconds', async () => {
    const { own, read, token, advance } = await clockedWorld();
    try {
      expect((await read(await token())).status).toBe(200);
      await own.rotateKey();
      const rotated = await token();
      expect((await read(rotated)).status).toBe(401);
      advance(31_000);
      expect((await read(rotated)).status).toBe(200);
      expect(own.requests.filter((line) => line.includes('/jwks'))).toHaveLength(2);
    } finally {
      await own.close();
    }
  });

  it('checks a remembered token against every proof key and refuses it once it has expired', async () => {
    const { own, read, token, advance } = await clockedWorld();
    try {
      const bound = await token();
      expect((await read(bound)).status).toBe(200);
      const thief = await dpopClient();
      const stolen = await read(bound, thief);
      expect(stolen.status).toBe(401);
      expect(((await stolen.json()) as { detail: string }).detail).toMatch(/cnf\.jkt/);
      expect((await read(bound)).status).toBe(200);
      // The issuer's tokens live 300 seconds; the clock tolerance for access tokens is 5 seconds.
      advance(306_000);
      const expired = await read(bound);
      expect(expired.status).toBe(401);
      expect(((await expired.json()) as { detail: string }).detail).toMatch(/expired/);
    } finally {
      await own.close();
    }
  });

  it('believes a WebID profile for 10 seconds: an issuer removed from it stops working after that', async () => {
    const { own, read, token, advance } = await clockedWorld();
    try {
      const bound = await token();
      expect((await read(bound)).status).toBe(200);
      own.profile('/people/bob', ['https://another-issuer.example/']);
      expect((await read(bound)).status).toBe(200);
      advance(10_000);
      const refused = await read(bound);
      expect(refused.status).toBe(401);
      expect(((await refused.json()) as { detail: string }).detail).toMatch(/does not list/);
    } finally {
      await own.close();
    }
  });
});

describe('malformed DPoP credentials', () => {
  it('get 401 with problem+json, never a 5xx', async () => {
    const token = await boundToken();
    const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const claims = b64({ htm: 'GET', htu: PRIVATE, jti: 'x', iat: Math.floor(Date.now() / 1000) });
    const proofs = [
      'a.b.c',
      `${b64('not json')}.${claims}.c2ln`,
      `${b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: 'a string' })}.${claims}.c2ln`,
      `${b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: { kty: 'EC', crv: 'P-256', x: 'AA', y: 'AA' } })}.${claims}.c2ln`,
      `${b64({ typ: 'dpop+jwt', alg: 'RS256', jwk: { kty: 'RSA', e: 'AQAB', n: 'A'.repeat(3000) } })}.${claims}.c2ln`,
      `${b64({ typ: 'dpop+jwt', alg: 'ES256', jwk: client.jwk })}.${b64('[1,2]')}.c2ln`,
      await client.proof('GET', PRIVATE, { claims: { htu: 42, jti: { nested: true }, iat: 'now' } }),
    ];
    const tokens = ['a.b.c', `${b64({ alg: 'ES256' })}.${b64('not json')}.c2ln`, `${b64({ alg: 'ES256' })}.${b64({ iss: 'ftp://x' })}.c2ln`, `${b64({ alg: 'ES256' })}.${b64({ iss: 'http://[' })}.c2ln`, 'x'.repeat(5000)];
    for (const proof of proofs) {
      const response = await dpopRequest(PRIVATE, token, proof);
      expect(response.status, proof).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_dpop_proof"/);
    }
    for (const bad of tokens) {
      const response = await dpopRequest(PRIVATE, bad, await client.proof('GET', PRIVATE));
      expect(response.status, bad).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });
});
