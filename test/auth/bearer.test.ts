import { decodeJwt, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { mintToken } from '../../src/auth/bearer.ts';
import { loadOrCreateTokenKey, TOKEN_KEY_PATH } from '../../src/auth/token-key.ts';
import { parseDuration, resolveConfig } from '../../src/config/resolve.ts';
import { makeApp } from '../support/app.ts';
import { podWorld } from '../wac/pods.ts';

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe('bearer tokens', () => {
  it('carry the WebID and an expiry of --token-ttl', async () => {
    const w = await podWorld(['alice'], { tokenTtl: '12h' });
    const claims = decodeJwt(w.tokens.alice!);
    expect(claims.webid).toBe('http://pod.test/alice/#me');
    expect(claims.exp! - claims.iat!).toBe(12 * 3600);
  });

  it('work under every host name the server is reached by', async () => {
    const w = await podWorld(['alice']);
    for (const origin of ['http://127.0.0.1:3000', 'http://localhost:3000']) {
      const response = await w.app.fetch(new Request(origin + '/alice/private/', bearer(w.tokens.alice!)));
      expect(response.status).toBe(200);
    }
  });

  it('expired, forged and malformed tokens get 401 where identity is needed and are ignored on public resources', async () => {
    const w = await podWorld(['alice']);
    const key = await loadOrCreateTokenKey(w.storage);
    const expired = await mintToken(key, 'http://pod.test/alice/#me', 60, Date.now() - 3600_000);
    const forged = await new SignJWT({ webid: 'http://pod.test/alice/#me' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('urn:svc:bearer')
      .setAudience('urn:svc:bearer')
      .setExpirationTime('1h')
      .sign(crypto.getRandomValues(new Uint8Array(32)));
    for (const [token, reason] of [[expired, 'expired'], [forged, 'signature'], ['not-a-jwt', 'malformed']] as const) {
      const denied = await w.request('/alice/private/', bearer(token));
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toMatch(new RegExp(`^Bearer realm="http://pod.test", error="invalid_token", error_description="[^"]*${reason}[^"]*", DPoP realm="http://pod.test"$`));
      expect((await w.request('/alice/', bearer(token))).status).toBe(200);
    }
  });

  it('a token this server signed for a WebID that is not a URL gets 401 on every use, not only the first', async () => {
    const w = await podWorld(['alice']);
    const key = await loadOrCreateTokenKey(w.storage);
    const token = await mintToken(key, 'not a url', 3600, Date.now());
    for (let use = 0; use < 3; use++) {
      const denied = await w.request('/alice/private/', bearer(token));
      expect(denied.status).toBe(401);
      expect(denied.headers.get('www-authenticate')).toMatch(/error_description="[^"]*WebID[^"]*"/);
    }
  });

  it('DPoP and other schemes are not accepted as bearer tokens', async () => {
    const w = await podWorld(['alice']);
    const response = await w.request('/alice/private/', { headers: { authorization: `DPoP ${w.tokens.alice}` } });
    expect(response.status).toBe(401);
  });

  it('are signed with a key kept in storage, so they survive a restart', async () => {
    const w = await podWorld(['alice']);
    expect(await w.storage.head(TOKEN_KEY_PATH)).not.toBeNull();
    const restarted = makeApp({ public: false }, w.storage);
    expect((await restarted.request('/alice/private/', bearer(w.tokens.alice!))).status).toBe(200);
    // The key is server-private: not served over HTTP, whoever asks.
    expect((await restarted.request(TOKEN_KEY_PATH, bearer(w.tokens.alice!))).status).not.toBe(200);
  });
});

describe('--token-ttl', () => {
  it('parses durations', () => {
    expect(parseDuration('90')).toBe(90);
    expect(parseDuration('15m')).toBe(900);
    expect(parseDuration('30d')).toBe(30 * 86_400);
    expect(parseDuration('2w')).toBe(14 * 86_400);
    expect(parseDuration('soon')).toBeNull();
    expect(resolveConfig({}).tokenTtl).toBe(30 * 86_400);
    expect(resolveConfig({ env: { SVC_TOKEN_TTL: '1h' } }).tokenTtl).toBe(3600);
    expect(() => resolveConfig({ flags: { tokenTtl: '0' } })).toThrow(/--token-ttl/);
  });
});
