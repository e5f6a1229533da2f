/**
 * What one account may hold is bounded (issue 29): client credentials, passkeys and linked Nostr keys, each
 * with a default and an option. Past the bound the answer is a 409 problem (the account page shows it) and
 * nothing is stored. Against a real svc with small bounds.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { nostrSigner } from '../auth/nostr/signer.ts';
import { SoftAuthenticator } from './soft-authenticator.ts';
import { basic, cookiesFrom, form, hiddenField, json, logIn, PASSWORD, type Browser } from './support.ts';

const ALICE = basic('alice@example.org', PASSWORD);

async function expectBound(response: Response, type: string, detail: string): Promise<void> {
  expect(response.status).toBe(409);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  expect(await response.json()).toMatchObject({ status: 409, type: expect.stringContaining(type), detail: expect.stringContaining(detail) });
}

describe('per-account bounds of the identity provider', () => {
  let svc: RunningSvc;
  const server = { request: (path: string, init: RequestInit = {}) => fetch(svc.base + path, { ...init, redirect: 'manual' }) };

  beforeAll(async () => {
    svc = await startSvc(['--idp', '--idp-max-client-credentials', '2', '--idp-max-passkeys', '1', '--idp-max-nostr-keys', '1']);
    const created = await server.request('/.pods', json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
    if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
  });

  const accountPage = async (browser: Browser) => {
    const page = await server.request('/idp/account', { headers: { cookie: browser.cookies } });
    const html = await page.text();
    return { html, csrf: hiddenField(html, 'csrf'), challenge: hiddenField(html, 'challenge') };
  };

  it('client credentials: 409 past --idp-max-client-credentials, over JSON and on the account page; room again after a revoke', async () => {
    const make = (name: string) => server.request('/idp/client-credentials', json({ name }, { authorization: ALICE }));
    const first = await make('one');
    expect(first.status).toBe(201);
    expect((await make('two')).status).toBe(201);
    await expectBound(await make('three'), 'too-many-credentials', 'at most 2 client credentials');

    const browser = await logIn(server);
    const { csrf } = await accountPage(browser);
    const fromPage = await server.request('/idp/account/credentials', form({ csrf, name: 'four' }, { cookie: browser.cookies }));
    expect(fromPage.status).toBe(409);
    expect(await fromPage.text()).toContain('at most 2 client credentials');

    const listed = await (await server.request('/idp/client-credentials', { headers: { authorization: ALICE } })).json();
    expect(listed.map((credential: { name: string }) => credential.name).sort()).toEqual(['one', 'two']);
    const { client_id } = await first.json();
    expect((await server.request(`/idp/client-credentials/${client_id}`, { method: 'DELETE', headers: { authorization: ALICE } })).status).toBe(204);
    expect((await make('five')).status).toBe(201);
  });

  it('passkeys: 409 past --idp-max-passkeys, before the browser asks for one and when one is sent', async () => {
    const browser = await logIn(server);
    const { csrf } = await accountPage(browser);
    const post = async (path: string, body: Record<string, unknown>) => {
      const response = await server.request(`/idp/passkeys/${path}`, json({ csrf, ...body }, { cookie: browser.cookies, origin: svc.base }));
      browser.cookies = cookiesFrom(response, browser.cookies);
      return response;
    };
    const options = async () => {
      const response = await post('registration-options', {});
      expect(response.status).toBe(200);
      return response.json();
    };
    // Two registrations begun while the account held none: only the first is kept.
    const [firstOptions, secondOptions] = [await options(), await options()];
    expect((await post('registration', { name: 'kept passkey', credential: await new SoftAuthenticator(svc.base).create(firstOptions) })).status).toBe(201);
    await expectBound(await post('registration', { name: 'refused passkey', credential: await new SoftAuthenticator(svc.base).create(secondOptions) }), 'too-many-passkeys', 'at most 1 passkeys');
    await expectBound(await post('registration-options', {}), 'too-many-passkeys', 'at most 1 passkeys');
    const { html } = await accountPage(browser);
    expect(html).toContain('kept passkey');
    expect(html).not.toContain('refused passkey');
  });

  it('Nostr keys: 409 past --idp-max-nostr-keys; linking a key the account holds again is no new one; unlinking one makes room', async () => {
    const browser = await logIn(server);
    const linkUrl = `${svc.base}/idp/account/nostr`;
    const link = async (signer: ReturnType<typeof nostrSigner>) => {
      const { csrf, challenge } = await accountPage(browser);
      const body = new URLSearchParams({ csrf, challenge }).toString();
      return server.request('/idp/account/nostr', form({ csrf, challenge }, { cookie: browser.cookies, authorization: signer.authorization(linkUrl, 'POST', { body }) }));
    };
    const first = nostrSigner();
    expect((await link(first)).status).toBe(200);
    expect((await link(first)).status).toBe(200);
    const second = nostrSigner();
    await expectBound(await link(second), 'too-many-nostr-keys', 'at most 1 linked Nostr keys');
    expect((await server.request(`/.well-known/did/nostr/${second.pubkey}.json`)).status).toBe(404);
    expect((await accountPage(browser)).html).toContain(first.did);

    // Unlinking one on the account page makes room again.
    const { csrf } = await accountPage(browser);
    expect((await server.request('/idp/account/nostr/unlink', form({ csrf, key: first.pubkey }, { cookie: browser.cookies }))).status).toBe(200);
    expect((await link(second)).status).toBe(200);
    const html = (await accountPage(browser)).html;
    expect(html).toContain(second.did);
    expect(html).not.toContain(first.did);
  });
});
