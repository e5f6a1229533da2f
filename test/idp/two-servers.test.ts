/**
 * Two real svc processes: A is alice's identity provider, B holds a resource that grants Read to alice's
 * WebID. A's DPoP-bound token works at B until alice's WebID profile stops listing A as its issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { cookiesFrom, dpopKey, hiddenField, PASSWORD, pkce } from './support.ts';

const json = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('a token of server A at server B', () => {
  let a: RunningSvc;
  let b: RunningSvc;

  beforeAll(async () => {
    // Both on loopback, so their fetches of each other need --allow-private-fetch.
    [a, b] = await Promise.all([startSvc(['--idp', '--allow-private-fetch']), startSvc(['--allow-private-fetch'])]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it('works while the WebID lists A as issuer, and stops working when it no longer does', async () => {
    expect((await fetch(`${a.base}/.pods`, json({ name: 'alice', email: 'alice@example.org', password: PASSWORD }))).status).toBe(201);
    const aliceWebId = `${a.base}/alice/#me`;
    const bob = await (await fetch(`${b.base}/.pods`, json({ name: 'bob' }))).json();
    const asBob = { authorization: `Bearer ${bob.token}` };
    const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#bob> a acl:Authorization; acl:agent <${bob.webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#alice> a acl:Authorization; acl:agent <${aliceWebId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`;
    expect((await fetch(`${b.base}/bob/shared/note.txt`, { method: 'PUT', headers: { ...asBob, 'content-type': 'text/plain' }, body: 'for alice' })).status).toBe(201);
    expect((await fetch(`${b.base}/bob/shared/.acl`, { method: 'PUT', headers: { ...asBob, 'content-type': 'text/turtle' }, body: acl })).status).toBe(201);

    const key = await dpopKey();
    const issued = await fetch(`${a.base}/idp/credentials`, {
      ...json({ email: 'alice@example.org', password: PASSWORD }),
      headers: { 'content-type': 'application/json', dpop: await key.proof('POST', `${a.base}/idp/credentials`) },
    });
    const { access_token, token_type } = await issued.json();
    expect(token_type).toBe('DPoP');
    const target = `${b.base}/bob/shared/note.txt`;
    const readAtB = async () => fetch(target, { headers: { authorization: `DPoP ${access_token}`, dpop: await key.proof('GET', target) } });

    const read = await readAtB();
    expect(read.status, `${await read.clone().text()}\n${b.output()}`).toBe(200);
    expect(await read.text()).toBe('for alice');
    expect((await fetch(target)).status).toBe(401);

    // Alice's profile stops naming A as her issuer (the predicate is renamed, nothing else changes).
    const { access_token: bearer } = await (await fetch(`${a.base}/idp/credentials`, json({ email: 'alice@example.org', password: PASSWORD }))).json();
    const profileUrl = `${a.base}/alice/index.html`;
    const profile = await (await fetch(profileUrl, { headers: { authorization: `Bearer ${bearer}` } })).text();
    expect(profile).toContain('http://www.w3.org/ns/solid/terms#oidcIssuer');
    const edited = profile.replace('http://www.w3.org/ns/solid/terms#oidcIssuer', 'http://example.org/formerIssuer');
    expect((await fetch(profileUrl, { method: 'PUT', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'text/html' }, body: edited })).status).toBe(204);

    // B believes what it read about the profile for a few seconds (WEBID_ISSUERS_TTL_MS); then it refuses.
    let refused: Response | null = null;
    for (let attempt = 0; attempt < 40 && !refused; attempt++) {
      const response = await readAtB();
      if (response.status === 401) refused = response;
      else {
        expect(response.status).toBe(200);
        await response.body?.cancel();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    expect(refused, 'B kept accepting the token').not.toBeNull();
    expect((await refused!.json()).detail).toMatch(/does not list/);
  }, 60_000);

  it('A logs in an app whose client_id is a Client ID Document on B, and only to its redirect_uris', async () => {
    expect((await fetch(`${a.base}/.pods`, json({ name: 'carol', email: 'carol@example.org', password: PASSWORD }))).status).toBe(201);
    const dave = await (await fetch(`${b.base}/.pods`, json({ name: 'dave' }))).json();
    const clientId = `${b.base}/dave/public/app.jsonld`;
    const redirect = 'http://127.0.0.1:9/app/callback';
    const document = { '@context': 'https://www.w3.org/ns/solid/oidc-context.jsonld', client_id: clientId, client_name: 'Document App', redirect_uris: [redirect], scope: 'openid webid', grant_types: ['authorization_code'] };
    const stored = await fetch(clientId, { method: 'PUT', headers: { authorization: `Bearer ${dave.token}`, 'content-type': 'application/ld+json' }, body: JSON.stringify(document) });
    expect(stored.status).toBe(201);

    const { verifier, challenge } = await pkce();
    const query = (redirectUri: string) =>
      new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, scope: 'openid webid', state: 's', code_challenge: challenge, code_challenge_method: 'S256' });
    const elsewhere = await fetch(`${a.base}/idp/auth?${query('http://127.0.0.1:9/not-listed')}`);
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('is not one the client');

    const login = await fetch(`${a.base}/idp/auth?${query(redirect)}`);
    expect(login.status).toBe(200);
    let cookies = cookiesFrom(login);
    const html = await login.text();
    expect(html).toContain('Document App');
    const fields = Object.fromEntries([...html.matchAll(/type="hidden" name="([^"]+)"/g)].map(([, name]) => [name!, hiddenField(html, name!)]));
    const form = (extra: Record<string, string>) => ({ method: 'POST', redirect: 'manual' as const, headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: cookies }, body: new URLSearchParams({ ...fields, ...extra }) });
    const consent = await fetch(`${a.base}/idp/auth`, form({ email: 'carol@example.org', password: PASSWORD }));
    expect(consent.status).toBe(200);
    cookies = cookiesFrom(consent, cookies);
    const back = await fetch(`${a.base}/idp/consent`, form({ decision: 'allow' }));
    const code = new URL(back.headers.get('location')!).searchParams.get('code')!;
    const key = await dpopKey();
    const tokens = await fetch(`${a.base}/idp/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', dpop: await key.proof('POST', `${a.base}/idp/token`) },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier, client_id: clientId }),
    });
    expect(tokens.status).toBe(200);
    expect((await tokens.json()).token_type).toBe('DPoP');
  }, 60_000);
});
