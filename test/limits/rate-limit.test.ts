import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { MemoryCounterStore } from '../../src/limits/counter-store.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** An app with rate limits on, a clock the test moves, and the client address taken from a test header. */
function limitedApp(flags: Record<string, unknown> = {}) {
  const clock = { now: Date.parse('2026-03-01T12:00:00Z') };
  const config = resolveConfig({ flags: { quiet: true, public: true, rateLimit: true, ...flags } });
  const app = createApp(config, {
    runtime: 'test',
    storage: new MemoryDriver(),
    log: () => undefined,
    now: () => clock.now,
    clientAddress: (request) => request.headers.get('x-test-peer') ?? '192.0.2.1',
  });
  const request = async (path: string, init: RequestInit & { peer?: string } = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (init.peer) headers.set('x-test-peer', init.peer);
    return app.fetch(new Request('http://pod.test' + path, { ...init, headers }));
  };
  return { request, clock };
}

async function statuses(count: number, send: () => Promise<Response>): Promise<number[]> {
  const result: number[] = [];
  for (let i = 0; i < count; i++) result.push((await send()).status);
  return result;
}

const createPod = (name: string) => ({ method: 'POST', body: JSON.stringify({ name }), headers: { 'Content-Type': 'application/json' } });

describe('rate limits', () => {
  it('allows 100 requests per IP per minute, then 429 with Retry-After and RateLimit headers', async () => {
    const { request, clock } = limitedApp();
    clock.now += 15_000;
    const first = await request('/');
    expect(first.headers.get('ratelimit-limit')).toBe('100');
    expect(first.headers.get('ratelimit-remaining')).toBe('99');
    expect(first.headers.get('ratelimit-reset')).toBe('60');
    clock.now += 15_000;
    expect(new Set(await statuses(99, () => request('/')))).toEqual(new Set([200]));
    const refused = await request('/');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('45');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await refused.json()).detail).toContain('--rate-limit-requests');
    expect((await request('/', { peer: '192.0.2.2' })).status).toBe(200);
    clock.now += 45_000;
    expect((await request('/')).status).toBe(200);
  });

  it('allows 60 writes per identity per minute', async () => {
    const { request, clock } = limitedApp();
    const write = () => request('/w/x', { method: 'PUT', body: 'x', headers: { 'Content-Type': 'text/plain' } });
    const results = await statuses(61, write);
    expect(results.slice(0, 60).every((status) => status < 300)).toBe(true);
    expect(results[60]).toBe(429);
    expect((await request('/w/x')).status).toBe(200);
    clock.now += MINUTE;
    expect((await write()).status).toBe(204);
  });

  it('counts writes per WebID for token holders, so callers behind one address do not share a budget', async () => {
    const { request, clock } = limitedApp({ rateLimitWrites: 2, rateLimitRequests: 0, rateLimitPods: 0 });
    const tokenOf = async (name: string) => ((await (await request('/.pods', createPod(name))).json()) as { token: string }).token;
    const [alice, bob] = [await tokenOf('alice'), await tokenOf('bob')];
    const write = (path: string, token?: string) =>
      request(path, { method: 'PUT', body: 'x', headers: { 'Content-Type': 'text/plain', ...(token && { Authorization: `Bearer ${token}` }) } });
    expect(await statuses(3, () => write('/alice/x', alice))).toEqual([201, 204, 429]);
    // Same address, another WebID, and the anonymous budget of the address: all untouched by alice's writes.
    expect(await statuses(2, () => write('/bob/x', bob))).toEqual([201, 204]);
    expect((await write('/anon/x')).status).toBe(201);
    // alice's budget follows her WebID to another address.
    const elsewhere = await request('/alice/y', { method: 'PUT', body: 'y', headers: { 'Content-Type': 'text/plain', Authorization: `Bearer ${alice}` }, peer: '198.51.100.9' });
    expect(elsewhere.status).toBe(429);
    expect(Number(elsewhere.headers.get('retry-after'))).toBeGreaterThan(0);
    clock.now += MINUTE;
    expect((await write('/alice/x', alice)).status).toBe(204);
  });

  it('allows one pod per IP in the 24 hours from its first creation, not counting failed attempts', async () => {
    const { request, clock } = limitedApp({ rateLimitRequests: 0 });
    expect((await request('/.pods', createPod('Bad Name'))).status).toBe(400);
    clock.now += 6 * HOUR;
    expect((await request('/.pods', createPod('alice'))).status).toBe(201);
    const refused = await request('/.pods', createPod('bob'));
    expect(refused.status).toBe(429);
    // 24 hours from alice's creation: neither the failed attempt nor a midnight shared by all clients moves it.
    expect(refused.headers.get('retry-after')).toBe(String(24 * 3600));
    expect((await refused.json()).detail).toMatch(/1 per 24 hours from the first, set by the server's --rate-limit-pods; 0 lifts it/);
    expect((await request('/.pods', { ...createPod('carol'), peer: '198.51.100.7' })).status).toBe(201);
    clock.now += 23 * HOUR;
    const later = await request('/.pods', createPod('bob'));
    expect(later.status).toBe(429);
    expect(later.headers.get('retry-after')).toBe('3600');
    clock.now += HOUR;
    expect((await request('/.pods', createPod('bob'))).status).toBe(201);
  });

  it('lifts the pod limit with --rate-limit-pods 0, keeping the others', async () => {
    const { request } = limitedApp({ rateLimitPods: 0 });
    expect(await statuses(3, () => request('/.pods', createPod(`pod${Math.random().toString(36).slice(2, 8)}`)))).toEqual([201, 201, 201]);
    expect((await request('/')).headers.get('ratelimit-limit')).toBe('100');
  });

  it('allows 5 registrations per IP per hour and 10 login attempts per IP per minute', async () => {
    const { request, clock } = limitedApp({ rateLimitRequests: 0 });
    const register = await statuses(6, () => request('/idp/register', { method: 'POST' }));
    expect(register.slice(0, 5)).not.toContain(429);
    expect(register[5]).toBe(429);
    const login = await statuses(11, () => request('/idp/credentials', { method: 'POST' }));
    expect(login.slice(0, 10)).not.toContain(429);
    expect(login[10]).toBe(429);
    expect((await request('/idp/nostr/login', { method: 'POST' })).status).toBe(429);
    expect((await request('/idp/account/nostr', { method: 'POST' })).status).toBe(429);
    clock.now += MINUTE;
    expect((await request('/idp/credentials', { method: 'POST' })).status).not.toBe(429);
    expect((await request('/idp/register', { method: 'POST' })).status).toBe(429);
    clock.now += 60 * MINUTE;
    expect((await request('/idp/register', { method: 'POST' })).status).not.toBe(429);
  });

  it('counts passkey logins and their challenges as login attempts', async () => {
    const { request } = limitedApp({ rateLimitRequests: 0 });
    const paths = ['/idp/credentials', '/idp/passkeys/login-options', '/idp/passkeys/login'];
    let sent = 0;
    const mixed = await statuses(12, () => request(paths[sent++ % paths.length]!, { method: 'POST' }));
    expect(mixed.slice(0, 10)).not.toContain(429);
    expect(mixed.slice(10)).toEqual([429, 429]);
    expect((await request('/idp/passkeys/login', { method: 'POST' })).status).toBe(429);
    expect((await request('/idp/passkeys/login-options', { method: 'POST' })).status).toBe(429);
    expect((await request('/idp/passkeys/registration-options', { method: 'POST' })).status).not.toBe(429);
  });

  it('takes each limit from the configuration, and 0 drops a rule', async () => {
    const { request } = limitedApp({ rateLimitRequests: 3 });
    expect(await statuses(4, () => request('/'))).toEqual([200, 200, 200, 429]);
    const unlimited = limitedApp({ rateLimitRequests: 0 });
    expect(new Set(await statuses(150, () => unlimited.request('/')))).toEqual(new Set([200]));
  });

  it('trusts X-Forwarded-For only with --trust-proxy', async () => {
    const spoofed = (n: number) => ({ headers: { 'X-Forwarded-For': `203.0.113.${n}` } });
    const direct = limitedApp({ rateLimitRequests: 1 });
    expect((await direct.request('/', spoofed(1))).status).toBe(200);
    expect((await direct.request('/', spoofed(2))).status).toBe(429);
    const proxied = limitedApp({ rateLimitRequests: 1, trustProxy: true });
    expect((await proxied.request('/', spoofed(1))).status).toBe(200);
    expect((await proxied.request('/', spoofed(2))).status).toBe(200);
    expect((await proxied.request('/', { headers: { 'X-Forwarded-For': '10.0.0.1, 203.0.113.1' } })).status).toBe(429);
  });

  it('skips per-address rules when the runtime cannot tell the address', async () => {
    const config = resolveConfig({ flags: { quiet: true, public: true, rateLimitRequests: 1 } });
    const app = createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined });
    for (let i = 0; i < 3; i++) expect((await app.fetch(new Request('http://pod.test/'))).status).toBe(200);
  });

  it('adds no headers and no limits with --no-rate-limit', async () => {
    const { request } = limitedApp({ rateLimit: false, rateLimitRequests: 1 });
    expect(await statuses(3, () => request('/'))).toEqual([200, 200, 200]);
    expect((await request('/')).headers.get('ratelimit-limit')).toBeNull();
  });
});

describe('memory counter store', () => {
  it('counts in a window per key from its first hit, and refunds', async () => {
    const store = new MemoryCounterStore();
    expect(await store.add('k', MINUTE, 61_000)).toEqual({ count: 1, resetAt: 121_000 });
    expect(await store.add('other', MINUTE, 100_000)).toEqual({ count: 1, resetAt: 160_000 });
    expect((await store.add('k', MINUTE, 120_999)).count).toBe(2);
    expect((await store.add('k', MINUTE, 120_999, -1)).count).toBe(1);
    expect(await store.add('k', MINUTE, 121_000)).toEqual({ count: 1, resetAt: 181_000 });
  });

  it('forgets a window refunded to nothing, so the next hit starts a full one', async () => {
    const store = new MemoryCounterStore();
    await store.add('k', MINUTE, 0);
    await store.add('k', MINUTE, 0, -1);
    expect(await store.add('k', MINUTE, 30_000)).toEqual({ count: 1, resetAt: 90_000 });
  });
});
