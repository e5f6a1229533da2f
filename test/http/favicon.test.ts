/** `/favicon.ico`: the server's icon, cacheable, unless a resource is stored at that path. */
import { describe, expect, it } from 'vitest';
import { makeApp } from '../support/app.ts';
import { json, PASSWORD } from '../idp/support.ts';

describe('/favicon.ico', () => {
  it('answers the server icon, cacheable, with an ETag the browser can revalidate', async () => {
    const { request } = makeApp({});
    const response = await request('/favicon.ico');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    expect(response.headers.get('cache-control')).toBe('public, max-age=86400');
    const bytes = new Uint8Array(await response.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), two images.
    expect([...bytes.slice(0, 6)]).toEqual([0, 0, 1, 0, 2, 0]);
    expect(bytes.length).toBeLessThan(4096);
    const etag = response.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{16}"$/);
    expect((await request('/favicon.ico', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const head = await request('/favicon.ico', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  it("serves a stored favicon instead: the server's root in path mode, a pod's own on its host", async () => {
    const pathMode = makeApp({ public: true });
    expect((await pathMode.request('/favicon.ico', { method: 'PUT', headers: { 'content-type': 'image/png' }, body: 'stored' })).status).toBe(201);
    expect(await (await pathMode.request('/favicon.ico')).text()).toBe('stored');

    const subdomains = makeApp({ idp: true, subdomains: true, baseDomain: 'pods.test' });
    const send = (url: string, init?: RequestInit) => subdomains.app.fetch(new Request(url, init));
    expect((await send('http://pods.test/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const token = (await (await send('http://pods.test/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }))).json()).access_token;
    expect((await send('http://alice.pods.test/favicon.ico')).headers.get('content-type')).toBe('image/x-icon');
    const put = await send('http://alice.pods.test/favicon.ico', { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'image/png' }, body: 'alice icon' });
    expect(put.status).toBe(201);
    // Hers answers with its own access rules: private until she shares it.
    expect((await send('http://alice.pods.test/favicon.ico')).status).toBe(401);
    expect(await (await send('http://alice.pods.test/favicon.ico', { headers: { authorization: `Bearer ${token}` } })).text()).toBe('alice icon');
    expect((await send('http://pods.test/favicon.ico')).headers.get('content-type')).toBe('image/x-icon');
  });
});
