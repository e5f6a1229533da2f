import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { TestApp } from '../support/app.ts';
import { SoftAuthenticator } from './soft-authenticator.ts';
import { BASE, cookiesFrom, form, hiddenField, idpApp, json, PASSWORD } from './support.ts';

/** A browser's state against the app: its cookies (CSRF, session) and the CSRF value of the pages. */
class Browser {
  cookies = '';
  csrf = '';
  readonly app: TestApp;
  constructor(app: TestApp) {
    this.app = app;
  }

  async open(path = '/idp/auth'): Promise<string> {
    const response = await this.app.request(path, { headers: { cookie: this.cookies } });
    this.cookies = cookiesFrom(response, this.cookies);
    const html = await response.text();
    this.csrf = hiddenField(html, 'csrf');
    return html;
  }

  async passwordLogin(): Promise<void> {
    await this.open();
    const response = await this.app.request('/idp/auth', form({ csrf: this.csrf, email: 'alice@example.org', password: PASSWORD }, { cookie: this.cookies }));
    expect(response.status).toBe(303);
    this.cookies = cookiesFrom(response, this.cookies);
  }

  async post(path: string, body: Record<string, unknown> = {}): Promise<Response> {
    const response = await this.app.request(`/idp/passkeys/${path}`, json({ csrf: this.csrf, ...body }, { cookie: this.cookies, origin: BASE }));
    this.cookies = cookiesFrom(response, this.cookies);
    return response;
  }

  async options(path: string, body: Record<string, unknown> = {}): Promise<{ challenge: string; rpId: string; rp: { id: string }; user: { id: string }; allowCredentials?: { id: string }[] }> {
    const response = await this.post(path, body);
    expect(response.status, await response.clone().text()).toBe(200);
    return response.json();
  }

  async register(authenticator: SoftAuthenticator, name = 'Soft key'): Promise<Response> {
    const options = await this.options('registration-options');
    return this.post('registration', { name, credential: await authenticator.create(options) });
  }
}

/** Alice's app with one passkey registered from a logged-in browser. */
async function withPasskey(): Promise<{ app: TestApp; authenticator: SoftAuthenticator }> {
  const app = await idpApp();
  const browser = new Browser(app);
  await browser.passwordLogin();
  const authenticator = new SoftAuthenticator(BASE);
  expect((await browser.register(authenticator)).status).toBe(201);
  return { app, authenticator };
}

async function expectRefusal(response: Response, status: number, detail: RegExp): Promise<void> {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect((await response.json()).detail).toMatch(detail);
  expect(response.headers.get('set-cookie') ?? '').not.toContain('svc_idp_session=ey');
}

describe('passkeys of the identity provider', () => {
  it('registers a passkey for the logged-in account and logs in with it, with or without the email', async () => {
    const { app, authenticator } = await withPasskey();
    const account = new Browser(app);
    await account.passwordLogin();
    const page = await account.open('/idp/account');
    expect(page).toContain('Soft key');
    expect(page).toContain('not used yet');

    const browser = new Browser(app);
    await browser.open();
    const options = await browser.options('login-options');
    expect(options.rpId).toBe('pod.test');
    expect(options.allowCredentials).toEqual([]);
    const response = await browser.post('login', { credential: await authenticator.get(options) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ location: '/idp/account' });
    expect(await browser.open('/idp/account')).toContain('Logged in as <strong>alice@example.org</strong>');

    const typed = new Browser(app);
    await typed.open();
    const listed = await typed.options('login-options', { email: 'Alice@Example.org' });
    expect(listed.allowCredentials?.map((credential) => credential.id)).toEqual([authenticator.credentialId]);
    expect((await typed.post('login', { credential: await authenticator.get(listed) })).status).toBe(200);
  });

  it('offers a passkey on the consent page after a password login, until the account has one', async () => {
    const app = await idpApp();
    const { client_id } = await (await app.request('/idp/reg', json({ redirect_uris: ['https://app.example/cb'], client_name: 'Offer App' }))).json();
    const consentAfterPassword = async (browser: Browser) => {
      const query = { response_type: 'code', client_id, redirect_uri: 'https://app.example/cb', scope: 'openid webid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' };
      await browser.open(`/idp/auth?${new URLSearchParams(query)}`);
      const response = await app.request('/idp/auth', form({ ...query, csrf: browser.csrf, email: 'alice@example.org', password: PASSWORD }, { cookie: browser.cookies }));
      expect(response.status).toBe(200);
      browser.cookies = cookiesFrom(response, browser.cookies);
      return { html: await response.text(), csp: response.headers.get('content-security-policy')! };
    };
    const browser = new Browser(app);
    const first = await consentAfterPassword(browser);
    expect(first.html).toContain('id="passkey-add"');
    expect(first.csp).toContain('script-src');
    expect((await browser.register(new SoftAuthenticator(BASE))).status).toBe(201);
    const second = await consentAfterPassword(new Browser(app));
    expect(second.html).toContain('Allow');
    expect(second.html).not.toContain('passkey-add');
    expect(second.csp).not.toContain('script-src');
  });

  it('sends the browser on to the consent page of the authorization request it answered', async () => {
    const { app, authenticator } = await withPasskey();
    const browser = new Browser(app);
    await browser.open();
    const request = { response_type: 'code', client_id: 'https://app.example/id', redirect_uri: 'https://app.example/cb', scope: 'openid webid', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', state: 's', evil: 'dropped' };
    const response = await browser.post('login', { credential: await authenticator.get(await browser.options('login-options')), request });
    const { location } = await response.json();
    const target = new URL(location, BASE);
    expect(target.pathname).toBe('/idp/auth');
    expect(target.searchParams.get('client_id')).toBe('https://app.example/id');
    expect(target.searchParams.has('evil')).toBe(false);
  });

  it('refuses a replayed assertion: the challenge is used up, the counter unchanged', async () => {
    const { app, authenticator } = await withPasskey();
    const browser = new Browser(app);
    await browser.open();
    const credential = await authenticator.get(await browser.options('login-options'));
    expect((await browser.post('login', { credential })).status).toBe(200);
    await expectRefusal(await browser.post('login', { credential }), 401, /used already/);
    // The counter the first login stored still stands: the next real assertion passes.
    expect((await browser.post('login', { credential: await authenticator.get(await browser.options('login-options')) })).status).toBe(200);
  });

  it('refuses an unknown credential, and a removed one', async () => {
    const { app, authenticator } = await withPasskey();
    const browser = new Browser(app);
    await browser.open();
    const stranger = new SoftAuthenticator(BASE);
    await expectRefusal(await browser.post('login', { credential: await stranger.get(await browser.options('login-options')) }), 401, /not registered/);

    const owner = new Browser(app);
    await owner.passwordLogin();
    await owner.open('/idp/account');
    const removed = await app.request('/idp/account/passkeys/remove', form({ csrf: owner.csrf, id: authenticator.credentialId }, { cookie: owner.cookies }));
    expect(removed.status).toBe(200);
    expect(await removed.text()).toContain('The passkey has been removed.');
    await expectRefusal(await browser.post('login', { credential: await authenticator.get(await browser.options('login-options')) }), 401, /not registered/);
  });

  it('refuses a wrong origin, a counter that did not rise, a missing user verification and a wrong user handle', async () => {
    const { app, authenticator } = await withPasskey();
    const browser = new Browser(app);
    await browser.open();
    const attempt = async (answer: Parameters<SoftAuthenticator['get']>[1]) => browser.post('login', { credential: await authenticator.get(await browser.options('login-options'), answer) });
    await expectRefusal(await attempt({ origin: 'https://evil.example' }), 401, /origin/i);
    expect((await attempt({})).status).toBe(200);
    await expectRefusal(await attempt({ counter: authenticator.counter }), 401, /counter/i);
    await expectRefusal(await attempt({ userVerified: false }), 401, /verif/i);
    authenticator.userHandle = 'bm90LXRoZS11c2Vy';
    await expectRefusal(await attempt({}), 401, /another user/);
  });

  it('binds challenges to the browser, to their purpose and to the email given', async () => {
    const { app, authenticator } = await withPasskey();
    const asking = new Browser(app);
    await asking.open();
    const other = new Browser(app);
    await other.open();
    await expectRefusal(await other.post('login', { credential: await authenticator.get(await asking.options('login-options')) }), 401, /not issued to this browser/);

    const owner = new Browser(app);
    await owner.passwordLogin();
    await owner.open('/idp/account');
    const registration = await owner.options('registration-options');
    await expectRefusal(await owner.post('login', { credential: await authenticator.get({ challenge: registration.challenge, rpId: 'pod.test' }) }), 401, /challenge/);

    expect((await app.request('/.pods', json({ name: 'bob', email: 'bob@example.org', password: PASSWORD }))).status).toBe(201);
    await expectRefusal(await asking.post('login', { credential: await authenticator.get(await asking.options('login-options', { email: 'bob@example.org' })) }), 401, /another account/);
  });

  it('refuses registration without a session or CSRF value, a duplicate credential and a bad name', async () => {
    const { app, authenticator } = await withPasskey();
    const anonymous = new Browser(app);
    await anonymous.open();
    await expectRefusal(await anonymous.post('registration-options'), 401, /Log in first/);
    await expectRefusal(await anonymous.post('login-options', { csrf: 'forged' }), 403, /CSRF/);

    const owner = new Browser(app);
    await owner.passwordLogin();
    await owner.open('/idp/account');
    await expectRefusal(await owner.register(authenticator), 409, /registered already/);
    const options = await owner.options('registration-options');
    await expectRefusal(await owner.post('registration', { name: ' ', credential: await new SoftAuthenticator(BASE).create(options) }), 400, /name/);
    await expectRefusal(await owner.post('registration', { name: 'x', credential: { id: 'short' } }), 400, /credential/);
    const page = await owner.open('/idp/account');
    expect(page.match(/<form method="post" action="\/idp\/account\/passkeys\/remove">/g)).toHaveLength(1);
  });

  it('answers malformed bodies with 4xx problems, never 5xx', async () => {
    const { app, authenticator } = await withPasskey();
    const browser = new Browser(app);
    await browser.passwordLogin();
    await browser.open('/idp/account');
    const good = await authenticator.get(await browser.options('login-options'));
    const response = good.response as Record<string, unknown>;
    const bodies: Record<string, unknown>[] = [
      { credential: null },
      { credential: 'text' },
      { credential: { ...good, response: { ...response, clientDataJSON: 42 } } },
      { credential: { ...good, response: { ...response, clientDataJSON: '***' } } },
      { credential: { ...good, response: { ...response, authenticatorData: [], signature: {} } } },
      { credential: { ...good, rawId: 'other' } },
      { name: 7, credential: good },
      { email: 12 },
    ];
    for (const path of ['login', 'registration', 'login-options', 'registration-options']) {
      for (const body of bodies) {
        const answer = await browser.post(path, body);
        expect(answer.status, `${path} ${JSON.stringify(body).slice(0, 80)}`).toBeLessThan(500);
        if (answer.status >= 400) expect(answer.headers.get('content-type')).toContain('application/problem+json');
        await answer.arrayBuffer();
      }
    }
    const fresh = await authenticator.get(await browser.options('login-options'));
    const oddRequest = await browser.post('login', { credential: fresh, request: { client_id: 5, redirect_uri: ['x'], state: 's' } });
    expect(oddRequest.status).toBe(200);
    expect(await oddRequest.json()).toEqual({ location: '/idp/account' });
    const notJson = await app.request('/idp/passkeys/login', { method: 'POST', headers: { 'content-type': 'application/json', cookie: browser.cookies }, body: '{"csrf":' });
    expect(notJson.status).toBe(400);
  });

  it('serves the pages with each inline script allowed by its hash in the CSP, and no other', async () => {
    const app = await idpApp();
    const response = await app.request('/idp/auth');
    const csp = response.headers.get('content-security-policy')!;
    const scripts = [...(await response.text()).matchAll(/<script>([\s\S]*?)<\/script>/g)].map((match) => match[1]!);
    expect(scripts.length).toBe(2);
    const allowed = /script-src ([^;]*);/.exec(csp)![1]!.split(' ');
    const hashes = scripts.map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`);
    expect(allowed.sort()).toEqual(hashes.sort());
    expect(csp).toContain("connect-src 'self'");
    expect((await app.request('/idp/register')).headers.get('content-security-policy')).not.toContain('script-src');
  });
});
