import { decodeJwt, decodeProtectedHeader, jwtVerify, createLocalJWKSet } from 'jose';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, dpopKey, idpApp, json, PASSWORD } from './support.ts';

describe('POST /idp/credentials', () => {
  it('answers a Bearer token without a DPoP proof, which reads a private resource', async () => {
    const { request } = await idpApp();
    const response = await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600, webid: `${BASE}/alice/#me` });
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({ iss: `${BASE}/`, webid: `${BASE}/alice/#me`, sub: `${BASE}/alice/#me` });
    expect(claims.aud).toContain('solid');
    expect(claims.cnf).toBeUndefined();
    const keys = await (await request('/idp/jwks')).json();
    await jwtVerify(body.access_token, createLocalJWKSet(keys), { issuer: `${BASE}/`, audience: 'solid' });

    expect((await request('/alice/private/')).status).toBe(401);
    const read = await request('/alice/private/', { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(read.status).toBe(200);
    const write = await request('/alice/private/note.txt', { method: 'PUT', headers: { authorization: `Bearer ${body.access_token}`, 'content-type': 'text/plain' }, body: 'hi' });
    expect(write.status).toBe(201);
  });

  it('binds the token to the DPoP key when a proof comes along', async () => {
    const { request } = await idpApp();
    const key = await dpopKey();
    const proof = await key.proof('POST', `${BASE}/idp/credentials`);
    const response = await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }, { dpop: proof }));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.thumbprint });
    expect(decodeProtectedHeader(body.access_token).alg).toBe('ES256');
    // A DPoP-bound token is no bearer token.
    const asBearer = await request('/alice/private/', { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(asBearer.status).toBe(401);
    expect((await asBearer.json()).detail).toMatch(/DPoP/);
  });

  it('refuses its Bearer token once expired, and on an origin that is not its issuer', async () => {
    let clock = Date.UTC(2026, 0, 1, 9);
    const config = resolveConfig({ flags: { quiet: true, idp: true, rateLimit: false } });
    const app = createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined, now: () => clock });
    const call = (url: string, init?: RequestInit) => app.fetch(new Request(url, init));
    expect((await call(`${BASE}/.pods`, json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const { access_token } = await (await call(`${BASE}/idp/credentials`, json({ email: 'alice@example.org', password: PASSWORD }))).json();
    const read = (origin: string) => call(`${origin}/alice/private/`, { headers: { authorization: `Bearer ${access_token}` } });
    expect((await read(BASE)).status).toBe(200);
    expect((await read('http://elsewhere.test')).status).toBe(401);
    clock += 2 * 3600 * 1000;
    const expired = await read(BASE);
    expect(expired.status).toBe(401);
    expect((await expired.json()).detail).toMatch(/expired/);
  });

  it('refuses a wrong password or unknown email with 401 problem+json', async () => {
    const { request } = await idpApp();
    for (const body of [{ email: 'alice@example.org', password: 'wrong password' }, { email: 'nobody@example.org', password: PASSWORD }]) {
      const response = await request('/idp/credentials', json(body));
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('refuses a proof for another URL or method, and a replayed proof', async () => {
    const { request } = await idpApp();
    const key = await dpopKey();
    const wrongUrl = await key.proof('POST', `${BASE}/idp/token`);
    expect((await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }, { dpop: wrongUrl }))).status).toBe(400);
    const wrongMethod = await key.proof('GET', `${BASE}/idp/credentials`);
    expect((await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }, { dpop: wrongMethod }))).status).toBe(400);
    const proof = await key.proof('POST', `${BASE}/idp/credentials`);
    expect((await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }, { dpop: proof }))).status).toBe(200);
    const replay = await request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }, { dpop: proof }));
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe('invalid_dpop_proof');
  });

  it('counts login attempts: the 11th within a minute gets 429 with Retry-After', async () => {
    // A fixed clock keeps all attempts in one window; the address comes from X-Forwarded-For.
    const config = resolveConfig({ flags: { quiet: true, idp: true, trustProxy: true } });
    const app = createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined, now: () => Date.UTC(2026, 0, 1, 12, 0, 30) });
    const attempt = () => app.fetch(new Request(`${BASE}/idp/credentials`, json({ email: 'x@example.org', password: 'wrong password' }, { 'x-forwarded-for': '192.0.2.7' })));
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual(Array(10).fill(401));
    const refused = await attempt();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
