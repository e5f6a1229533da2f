/**
 * The data browser is the identity provider's first-party client (`<origin>/.databrowser/id`, its login
 * coming back to `<origin>/.databrowser/callback`), and the only client sent to the server's own origin: in
 * path mode no other client may name a redirect_uri or client_id there, since a stored page of a pod runs
 * on it. In subdomain mode a pod's host is its own origin, where the pod's apps log in.
 */
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { makeApp } from '../support/app.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { cookiesFrom, dpopKey, form, hiddenField, json, PASSWORD, pkce } from './support.ts';

type Send = (url: string, init?: RequestInit) => Promise<Response>;

/** An app with --idp (and `flags`) and alice's account, addressed by full URLs. */
async function serverWith(flags: Record<string, unknown>, origin = 'http://pod.test'): Promise<Send> {
  const test = makeApp({ idp: true, ...flags }, new MemoryDriver(), { databrowserAsset: async () => null });
  const send: Send = async (url, init) => test.app.fetch(new Request(url, init));
  const created = await send(`${origin}/.pods`, json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }));
  if (created.status !== 201) throw new Error(`${created.status} ${await created.text()}`);
  return send;
}

const authorization = (clientId: string, redirectUri: string, challenge: string) =>
  new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid webid offline_access', state: 's1', code_challenge: challenge, code_challenge_method: 'S256' });

/** Logs alice in on the login page of `issuer` for this authorization request; answers the consent page. */
async function consentPage(send: Send, issuer: string, query: URLSearchParams): Promise<{ html: string; cookies: string; fields: Record<string, string> }> {
  const login = await send(`${issuer}/idp/auth?${query}`);
  expect(login.status).toBe(200);
  let cookies = cookiesFrom(login);
  const loginHtml = await login.text();
  const fields = Object.fromEntries([...query.keys(), 'csrf'].map((name) => [name, hiddenField(loginHtml, name)]));
  const consent = await send(`${issuer}/idp/auth`, form({ ...fields, email: 'alice@example.org', password: PASSWORD }, { cookie: cookies }));
  expect(consent.status).toBe(200);
  cookies = cookiesFrom(consent, cookies);
  return { html: await consent.text(), cookies, fields };
}

async function refusal(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  return response.text();
}

describe('the data browser as first-party client (path mode)', () => {
  const origin = 'http://pod.test';
  const clientId = `${origin}/.databrowser/id`;
  const callback = `${origin}/.databrowser/callback`;

  it('logs in with its callback, named on the login and consent pages, and gets tokens for its client ID', async () => {
    const send = await serverWith({ databrowser: true });
    const { verifier, challenge } = await pkce();
    const { html, cookies, fields } = await consentPage(send, origin, authorization(clientId, callback, challenge));
    expect(html).toContain('<strong>Data browser of pod.test, which this server runs itself</strong> asks to log in as you.');
    expect(html).toContain(`<code>${callback}</code>`);
    expect(html).not.toContain('runs on the host of a pod');
    const back = await send(`${origin}/idp/consent`, form({ ...fields, decision: 'allow' }, { cookie: cookies }));
    expect(back.status).toBe(303);
    const location = new URL(back.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(callback);
    const key = await dpopKey();
    const token = await send(`${origin}/idp/token`, form(
      { grant_type: 'authorization_code', code: location.searchParams.get('code')!, redirect_uri: callback, code_verifier: verifier, client_id: clientId },
      { dpop: await key.proof('POST', `${origin}/idp/token`) },
    ));
    expect(token.status).toBe(200);
    const body = await token.json();
    expect(decodeJwt(body.access_token)).toMatchObject({ client_id: clientId, webid: `${origin}/alice/#me` });
    expect(body.refresh_token).toEqual(expect.any(String));
  });

  it('is refused a redirect anywhere but its callback, and is no client at all without the data browser', async () => {
    const send = await serverWith({ databrowserCdn: true });
    const { challenge } = await pkce();
    const elsewhere = await refusal(await send(`${origin}/idp/auth?${authorization(clientId, `${origin}/alice/public/page.html`, challenge)}`));
    expect(elsewhere).toContain('is not one the client');
    const plain = await serverWith({});
    const unknown = await refusal(await plain(`${origin}/idp/auth?${authorization(clientId, callback, challenge)}`));
    expect(unknown).toContain("is on this server&#39;s own origin");
  });
});

describe("other clients on the server's own origin (path mode)", () => {
  const origin = 'http://pod.test';
  const storedPage = `${origin}/alice/public/page.html`;

  it('are refused at registration, at authorization (public client, Client ID Document), and with no redirect', async () => {
    const send = await serverWith({ databrowser: true });
    const registration = await send(`${origin}/idp/reg`, json({ redirect_uris: [storedPage], client_name: 'A page of alice' }));
    expect(registration.status).toBe(400);
    expect(await registration.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    const callback = await send(`${origin}/idp/reg`, json({ redirect_uris: [`${origin}/.databrowser/callback`], client_name: 'Not the data browser' }));
    expect(callback.status).toBe(400);

    const { challenge } = await pkce();
    const publicClient = await refusal(await send(`${origin}/idp/auth?${authorization('http://www.w3.org/ns/solid/terms#PublicOidcClient', storedPage, challenge)}`));
    expect(publicClient).toContain("is on this server&#39;s own origin");
    const document = await refusal(await send(`${origin}/idp/auth?${authorization(`${origin}/alice/public/client.jsonld`, storedPage, challenge)}`));
    expect(document).toContain('client_id');

    const elsewhere = await send(`${origin}/idp/reg`, json({ redirect_uris: ['https://app.example/cb'], client_name: 'An app' }));
    expect(elsewhere.status).toBe(201);
  });

  it('are refused on every --allowed-hosts host too', async () => {
    const send = await serverWith({ allowedHosts: 'pod.test,alias.test' });
    const registration = await send('http://pod.test/idp/reg', json({ redirect_uris: ['http://alias.test/alice/public/page.html'] }));
    expect(registration.status).toBe(400);
  });
});

describe('subdomain mode', () => {
  const base = 'http://pods.test';
  const alice = 'http://alice.pods.test';

  it("lets a pod's own app log in on its host, refuses the base domain, and knows each host's data browser", async () => {
    const send = await serverWith({ subdomains: true, baseDomain: 'pods.test', databrowser: true }, base);
    const app = await send(`${base}/idp/reg`, json({ redirect_uris: [`${alice}/apps/notes/`], client_name: 'Notes in her pod' }));
    expect(app.status).toBe(201);
    const { challenge } = await pkce();
    const { client_id } = await app.json();
    const { html } = await consentPage(send, base, authorization(client_id, `${alice}/apps/notes/`, challenge));
    expect(html).toContain('Notes in her pod');

    expect((await send(`${base}/idp/reg`, json({ redirect_uris: [`${base}/alice/apps/notes/`] }))).status).toBe(400);

    const browser = await consentPage(send, base, authorization(`${alice}/.databrowser/id`, `${alice}/.databrowser/callback`, challenge));
    expect(browser.html).toContain('Data browser of alice.pods.test');
    // Her stored pages share that origin: the consent page says so, not only that the server runs it.
    expect(browser.html).toContain('It runs on the host of a pod, <code>alice.pods.test</code>, where the pages stored in that pod run too');
    const onBase = await consentPage(send, base, authorization(`${base}/.databrowser/id`, `${base}/.databrowser/callback`, challenge));
    expect(onBase.html).toContain('Data browser of pods.test, which this server runs itself');
    expect(onBase.html).not.toContain('runs on the host of a pod');
    const crossed = await refusal(await send(`${base}/idp/auth?${authorization(`${alice}/.databrowser/id`, `${base}/.databrowser/callback`, challenge)}`));
    expect(crossed).toContain('is not one the client');
  });
});
