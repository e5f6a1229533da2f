/**
 * Two real svc processes: A is alice's identity provider, B holds a resource that grants Read to alice's
 * WebID. A's DPoP-bound token works at B until alice's WebID profile stops listing A as its issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { dpopKey, PASSWORD } from './support.ts';

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
});
