import { sha256 } from '@noble/hashes/sha2.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { nostrSigner, type NostrSigner } from '../auth/nostr/signer.ts';
import { profileHtml } from '../../src/pods/layout.ts';
import { BASE, cookiesFrom, form, hiddenField, idpApp, json, PASSWORD } from './support.ts';

const LOGIN = `${BASE}/idp/nostr/login`;
const LINK = `${BASE}/idp/account/nostr`;

let test: TestApp;
let key: NostrSigner;

beforeEach(async () => {
  test = await idpApp();
  key = nostrSigner();
});

/** A form POST signed with NIP-98 (payload = SHA-256 of the form body). */
function signedForm(signer: NostrSigner, url: string, fields: Record<string, string>, cookie: string, options: Parameters<NostrSigner['authorization']>[2] = {}): RequestInit {
  const body = new URLSearchParams(fields).toString();
  return form(fields, { cookie, authorization: signer.authorization(url, 'POST', { body, ...options }) });
}

/** Logs alice (or another account) in with the password and opens the account page: the cookies, CSRF value and link challenge. */
async function accountPage(email = 'alice@example.org'): Promise<{ cookie: string; csrf: string; challenge: string; html: string }> {
  const loginPage = await test.request('/idp/auth');
  let cookie = cookiesFrom(loginPage);
  const csrf = hiddenField(await loginPage.text(), 'csrf');
  const login = await test.request('/idp/auth', form({ csrf, email, password: PASSWORD }, { cookie }));
  expect(login.status).toBe(303);
  cookie = cookiesFrom(login, cookie);
  const page = await test.request('/idp/account', { headers: { cookie } });
  const html = await page.text();
  return { cookie, csrf, challenge: hiddenField(html, 'challenge'), html };
}

async function link(signer: NostrSigner, email?: string): Promise<void> {
  const { cookie, csrf, challenge } = await accountPage(email);
  const linked = await test.request('/idp/account/nostr', signedForm(signer, LINK, { csrf, challenge }, cookie));
  expect(linked.status).toBe(200);
}

async function expectRefused(response: Response, detail: RegExp): Promise<void> {
  expect(response.status).toBe(401);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  expect(((await response.json()) as { detail: string }).detail).toMatch(detail);
}

/** A fresh login page's cookie and CSRF value, as the browser has them before signing in. */
async function loginForm(): Promise<{ cookie: string; csrf: string }> {
  const page = await test.request('/idp/auth');
  return { cookie: cookiesFrom(page), csrf: hiddenField(await page.text(), 'csrf') };
}

describe('linking a Nostr key on the account page', () => {
  it('links the key that signed the challenge; the account page lists it and the DID document names the WebID', async () => {
    const { cookie, csrf, challenge } = await accountPage();
    const linked = await test.request('/idp/account/nostr', signedForm(key, LINK, { csrf, challenge }, cookie));
    expect(linked.status).toBe(200);
    expect(await linked.json()).toEqual({ location: '/idp/account' });
    expect((await accountPage()).html).toContain(`did:nostr:${key.pubkey}`);
    const did = await test.request(`/.well-known/did/nostr/${key.pubkey}.json`);
    expect(did.headers.get('content-type')).toBe('application/did+json');
    expect(await did.json()).toEqual({ '@context': ['https://www.w3.org/ns/did/v1'], id: key.did, alsoKnownAs: [`${BASE}/alice/#me`] });
  });

  it('refuses a bad event, a used or foreign challenge, and links nothing', async () => {
    const { cookie, csrf, challenge } = await accountPage();
    await expectRefused(await test.request('/idp/account/nostr', signedForm(key, LINK, { csrf, challenge }, cookie, { tamper: true })), /not authentic/);
    await expectRefused(await test.request('/idp/account/nostr', signedForm(key, `${BASE}/idp/nostr/login`, { csrf, challenge }, cookie)), /u tag/);
    await expectRefused(await test.request('/idp/account/nostr', form({ csrf, challenge }, { cookie })), /NIP-98/);
    await expectRefused(await test.request('/idp/account/nostr', signedForm(key, LINK, { csrf, challenge: 'x'.repeat(43) }, cookie)), /challenge/);
    expect((await test.request(`/.well-known/did/nostr/${key.pubkey}.json`)).status).toBe(404);
    // The refusals above left the challenge unused: it links once, then never again.
    expect((await test.request('/idp/account/nostr', signedForm(key, LINK, { csrf, challenge }, cookie))).status).toBe(200);
    const other = nostrSigner();
    await expectRefused(await test.request('/idp/account/nostr', signedForm(other, LINK, { csrf, challenge }, cookie)), /challenge/);
    expect((await test.request(`/.well-known/did/nostr/${other.pubkey}.json`)).status).toBe(404);
  });

  it('refuses an expired challenge', async () => {
    let now = Date.now();
    test = await idpApp({}, { now: () => now });
    const { cookie, csrf, challenge } = await accountPage();
    now += 11 * 60 * 1000;
    const signed = signedForm(key, LINK, { csrf, challenge }, cookie, { createdAt: Math.floor(now / 1000) });
    await expectRefused(await test.request('/idp/account/nostr', signed), /expired/);
  });
});

describe('unlinking a Nostr key on the account page', () => {
  const UNLINK = '/idp/account/nostr/unlink';

  it('unlinks the key: the page no longer lists it, it no longer logs in, its DID document is gone; it may be linked again', async () => {
    await link(key);
    const { cookie, csrf, html } = await accountPage();
    expect(html).toContain(`action="${UNLINK}"`);
    const unlinked = await test.request(UNLINK, form({ csrf, key: key.pubkey }, { cookie }));
    expect(unlinked.status).toBe(200);
    const page = await unlinked.text();
    expect(page).toContain('has been unlinked');
    expect(page).not.toContain(`did:nostr:${key.pubkey}`);
    expect((await test.request(`/.well-known/did/nostr/${key.pubkey}.json`)).status).toBe(404);
    const login = await loginForm();
    await expectRefused(await test.request('/idp/nostr/login', signedForm(key, LOGIN, { csrf: login.csrf }, login.cookie)), /not linked/);
    await link(key);
    expect((await test.request(`/.well-known/did/nostr/${key.pubkey}.json`)).status).toBe(200);
  });

  it('refuses a form without the CSRF value, and a key of another account or none, unlinking nothing', async () => {
    expect((await test.request('/.pods', json({ name: 'bob', email: 'bob@example.org', password: PASSWORD }))).status).toBe(201);
    await link(key);
    const bobs = nostrSigner();
    await link(bobs, 'bob@example.org');
    const { cookie, csrf } = await accountPage();

    const noCsrf = await test.request(UNLINK, form({ key: key.pubkey }, { cookie }));
    expect(noCsrf.status).toBe(403);
    expect(noCsrf.headers.get('content-type')).toBe('application/problem+json');
    for (const other of [bobs.pubkey, nostrSigner().pubkey, 'not-a-key']) {
      const refused = await test.request(UNLINK, form({ csrf, key: other }, { cookie }));
      expect(refused.status).toBe(404);
      expect(await refused.text()).toContain('no such Nostr key');
    }
    for (const linked of [key, bobs]) expect((await test.request(`/.well-known/did/nostr/${linked.pubkey}.json`)).status).toBe(200);
  });
});

describe('Nostr sign-in on the login page', () => {
  it('logs in the account that linked the key', async () => {
    await link(key);
    const { cookie, csrf } = await loginForm();
    const login = await test.request('/idp/nostr/login', signedForm(key, LOGIN, { csrf }, cookie));
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ location: '/idp/account' });
    const account = await test.request('/idp/account', { headers: { cookie: cookiesFrom(login, cookie) } });
    expect(account.status).toBe(200);
    expect(await account.text()).toContain('alice@example.org');
  });

  it('sends the browser on to the authorization request it came with', async () => {
    await link(key);
    const { cookie, csrf } = await loginForm();
    const fields = { csrf, client_id: 'https://app.example/id', response_type: 'code', scope: 'openid webid' };
    const login = await test.request('/idp/nostr/login', signedForm(key, LOGIN, fields, cookie));
    const { location } = (await login.json()) as { location: string };
    expect(new URL(location, BASE).pathname).toBe('/idp/auth');
    expect(new URL(location, BASE).searchParams.get('client_id')).toBe('https://app.example/id');
    expect(new URL(location, BASE).searchParams.get('csrf')).toBeNull();
  });

  it('refuses an unlinked key, a bad signature, a replayed event and a missing one, without a session', async () => {
    await link(key);
    const { cookie, csrf } = await loginForm();
    const noSession = async (response: Response, detail: RegExp) => {
      expect(response.headers.getSetCookie()).toEqual([]);
      await expectRefused(response, detail);
    };
    await noSession(await test.request('/idp/nostr/login', signedForm(nostrSigner(), LOGIN, { csrf }, cookie)), /not linked/);
    await noSession(await test.request('/idp/nostr/login', signedForm(key, LOGIN, { csrf }, cookie, { tamper: true })), /not authentic/);
    await noSession(await test.request('/idp/nostr/login', signedForm(key, LOGIN, { csrf }, cookie, { kind: 1 })), /kind/);
    const once = signedForm(key, LOGIN, { csrf }, cookie);
    expect((await test.request('/idp/nostr/login', once)).status).toBe(200);
    await noSession(await test.request('/idp/nostr/login', once), /used already/);
    await noSession(await test.request('/idp/nostr/login', form({ csrf }, { cookie })), /NIP-98/);
  });

  it('allows the login page\'s Nostr script by its hash', async () => {
    const page = await test.request('/idp/auth');
    const html = await page.text();
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = btoa(String.fromCharCode(...sha256(new TextEncoder().encode(script))));
    const allowed = /script-src ([^;]*);/.exec(page.headers.get('content-security-policy')!)![1]!.split(' ');
    expect(allowed).toContain(`'sha256-${hash}'`);
    expect(html).toContain('data-nostr-post="/idp/nostr/login"');
  });
});

describe('this server as the DID resolver of its accounts\' keys', () => {
  it('makes a linked key the account\'s WebID for NIP-98 once the profile names the key back (owl:sameAs)', async () => {
    let now = Date.now();
    test = await idpApp({}, { now: () => now });
    await link(key);
    const privateUrl = `${BASE}/alice/private/`;
    const read = () => test.app.fetch(new Request(privateUrl, { headers: { authorization: key.authorization(privateUrl, 'GET', { createdAt: Math.floor(now / 1000) }) } }));
    // The DID document names alice, but her profile does not name the key: the key alone, which her ACL does not grant.
    expect((await read()).status).toBe(403);

    const token = await test.request('/idp/credentials', json({ email: 'alice@example.org', password: PASSWORD }));
    const { access_token } = (await token.json()) as { access_token: string };
    const profile = profileHtml('alice', { 'http://www.w3.org/2002/07/owl#sameAs': { '@id': key.did } });
    const put = await test.request('/alice/index.html', { method: 'PUT', headers: { authorization: `Bearer ${access_token}`, 'content-type': 'text/html' }, body: profile });
    expect(put.status).toBe(204);
    now += 11_000;
    const response = await read();
    expect(response.status).toBe(200);
    expect(response.headers.get('wac-allow')).toMatch(/^user="read write append control"/);
  });
});
