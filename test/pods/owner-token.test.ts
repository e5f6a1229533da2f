import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/resolve.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE, makeApp } from '../support/app.ts';

const SECRET = 'a-secret-of-at-least-thirty-two-chars';
const askToken = (secret: string | null): RequestInit => ({ method: 'POST', ...(secret !== null && { headers: { authorization: `Bearer ${secret}` } }) });
const putText = (token: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'text/plain', authorization: `Bearer ${token}` }, body: 'mine' });

describe('--single-user-secret: the owner token for a secret (POST /.pods/owner-token)', () => {
  it('answers an owner token for the pod at /, as often as asked, that writes to the pod', async () => {
    const { request } = makeApp({ singleUser: true, singleUserName: '', singleUserSecret: SECRET });
    const answer = await request('/.pods/owner-token', askToken(SECRET));
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const body = (await answer.json()) as { token: string; webId: string; podUri: string };
    expect(body).toMatchObject({ webId: `${BASE}/profile/card#me`, podUri: `${BASE}/` });
    expect((await request('/private/note.txt', putText(body.token))).status).toBe(201);
    const again = (await (await request('/.pods/owner-token', askToken(SECRET))).json()) as { token: string };
    expect((await request('/private/other.txt', putText(again.token))).status).toBe(201);
  });

  it('answers a token for a named pod', async () => {
    const { request } = makeApp({ singleUser: true, singleUserName: 'solo', singleUserSecret: SECRET });
    const body = (await (await request('/.pods/owner-token', askToken(SECRET))).json()) as { token: string; webId: string };
    expect(body.webId).toBe(`${BASE}/solo/#me`);
    expect((await request('/solo/private/note.txt', putText(body.token))).status).toBe(201);
  });

  it('refuses a missing, wrong, longer or shorter secret with the same 401 problem', async () => {
    const { request } = makeApp({ singleUser: true, singleUserSecret: SECRET });
    for (const secret of [null, 'x'.repeat(SECRET.length), `${SECRET}x`, SECRET.slice(0, -1)]) {
      const refused = await request('/.pods/owner-token', askToken(secret));
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(((await refused.json()) as { type: string }).type).toBe('urn:svc:problem:owner-secret-required');
    }
  });

  it('counts requests as login attempts (--rate-limit-login)', async () => {
    const { request } = makeApp({ singleUser: true, singleUserSecret: SECRET, rateLimit: true, rateLimitLogin: 2 }, new MemoryDriver(), { clientAddress: () => '203.0.113.5' });
    expect((await request('/.pods/owner-token', askToken('wrong'))).status).toBe(401);
    expect((await request('/.pods/owner-token', askToken('wrong'))).status).toBe(401);
    expect((await request('/.pods/owner-token', askToken(SECRET))).status).toBe(429);
  });

  it('ends the tokens traded for a secret when the secret is changed, and keeps them while it is the same', async () => {
    const storage = new MemoryDriver();
    const first = makeApp({ singleUser: true, singleUserName: '', singleUserSecret: SECRET }, storage);
    const { token } = (await (await first.request('/.pods/owner-token', askToken(SECRET))).json()) as { token: string };
    expect((await first.request('/private/a.txt', putText(token))).status).toBe(201);
    const restarted = makeApp({ singleUser: true, singleUserName: '', singleUserSecret: SECRET }, storage);
    expect((await restarted.request('/private/b.txt', putText(token))).status).toBe(201);
    const changed = makeApp({ singleUser: true, singleUserName: '', singleUserSecret: `${SECRET}-changed` }, storage);
    const refused = await changed.request('/private/c.txt', putText(token));
    expect(refused.status).toBe(401);
    expect(await refused.text()).toMatch(/--single-user-secret that has since changed.*POST \/.pods\/owner-token/);
    const removed = makeApp({ singleUser: true, singleUserName: '' }, storage);
    expect((await removed.request('/private/d.txt', putText(token))).status).toBe(401);
  });

  it('has no such route without the secret', async () => {
    const { request } = makeApp({ singleUser: true, singleUserName: '' });
    expect((await request('/.pods/owner-token', askToken(SECRET))).status).not.toBe(200);
  });

  it('stops at startup on a short secret, or one without --single-user', () => {
    expect(() => makeApp({ singleUser: true, singleUserSecret: 'short' })).toThrow(ConfigError);
    expect(() => makeApp({ singleUser: true, singleUserSecret: 'short' })).toThrow(/at least 32 characters/);
    expect(() => makeApp({ singleUserSecret: SECRET })).toThrow(/add --single-user/);
  });

  it('stops at startup on a long secret with too few different characters, saying how to make a random one', () => {
    for (const pattern of ['x'.repeat(40), 'abc'.repeat(12), '012345678'.repeat(4)]) {
      expect(() => makeApp({ singleUser: true, singleUserSecret: pattern })).toThrow(/has only \d+ different characters.*at least 10.*openssl rand -base64 32/);
    }
    expect(() => makeApp({ singleUser: true, singleUserSecret: '0123456789'.repeat(4) })).not.toThrow();
  });
});
