/**
 * With --idp and no data browser, a browser window opening a private resource gets a page in words (what
 * happened, the way to the login) with the refusal's status and challenge; every other client keeps
 * problem+json.
 */
import { describe, expect, it } from 'vitest';
import { makeApp } from '../support/app.ts';
import { idpApp, json, PASSWORD } from './support.ts';

const WINDOW = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' };

describe('the "log in" page of a refused browser window', () => {
  it('says what happened, links to the login, and keeps the status and the challenge', async () => {
    const { request } = await idpApp();
    for (const headers of [WINDOW, { accept: 'text/html' }] as Record<string, string>[]) {
      const response = await request('/alice/private/', { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('content-length')).toBeNull();
      const page = await response.text();
      expect(page).toContain('<title>Log in to see this</title>');
      expect(page).toContain('<a class="button" href="http://pod.test/idp/auth">Log in</a>');
      expect(page).toContain('<code>http://pod.test/alice/private/</code>');
    }
    const head = await request('/alice/private/', { method: 'HEAD', headers: WINDOW });
    expect(head.status).toBe(401);
    expect(await head.text()).toBe('');
  });

  it('tells a window whose login may not read that it may not', async () => {
    const app = await idpApp();
    await app.request('/.pods', json({ name: 'bob', email: 'bob@example.org', password: PASSWORD }));
    const bob = (await (await app.request('/idp/credentials', json({ email: 'bob@example.org', password: PASSWORD }))).json()).access_token;
    const response = await app.request('/alice/private/', { headers: { ...WINDOW, authorization: `Bearer ${bob}` } });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('that identity may not read this resource');
  });

  it('leaves apps, scripts, frames and curl with problem+json, and is off without the identity provider', async () => {
    const { request } = await idpApp();
    const clients: Record<string, string>[] = [{ 'sec-fetch-mode': 'cors', accept: 'text/html' }, { ...WINDOW, 'sec-fetch-dest': 'iframe' }, { accept: '*/*' }, {}];
    for (const headers of clients) {
      const response = await request('/alice/private/', { headers });
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    }
    const plain = makeApp({});
    await plain.request('/.pods', json({ name: 'carol' }));
    expect((await plain.request('/carol/private/', { headers: WINDOW })).headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
