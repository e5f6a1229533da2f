/**
 * Solid-OIDC DPoP tokens against a real `svc start` process: the Node runtime's guarded fetch reaches the
 * test issuer on loopback only with --allow-private-fetch (and says so at startup); without it, not one
 * request reaches the issuer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSvc, type RunningSvc } from '../support/server.ts';
import { dpopClient, startTestIssuer, type DpopClient, type TestIssuer } from '../auth/solid-oidc/issuer.ts';

let issuer: TestIssuer;
let client: DpopClient;
let webId: string;

beforeAll(async () => {
  issuer = await startTestIssuer();
  webId = issuer.profile('/people/bob', [issuer.issuer]);
  client = await dpopClient();
});
afterAll(() => issuer.close());

/** A pod alice whose private container grants Read to the issuer's WebID. */
async function podGrantingBob(svc: RunningSvc): Promise<string> {
  const created = await fetch(`${svc.base}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  const { token } = (await created.json()) as { token: string };
  const acl = `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`;
  const put = await fetch(`${svc.base}/alice/private/.acl`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body: acl });
  expect(put.status).toBe(204);
  return `${svc.base}/alice/private/`;
}

async function dpopGet(url: string): Promise<Response> {
  const token = await issuer.token({ webid: webId, cnf: { jkt: client.jkt } });
  return fetch(url, { headers: { authorization: `DPoP ${token}`, dpop: await client.proof('GET', url) } });
}

describe('svc start with Solid-OIDC tokens', () => {
  it('with --allow-private-fetch: warns at startup and accepts a token of an issuer on loopback', async () => {
    const svc = await startSvc(['-q', '--allow-private-fetch']);
    try {
      expect(svc.output()).toContain('warning: --allow-private-fetch is on');
      const response = await dpopGet(await podGrantingBob(svc));
      expect(response.status).toBe(200);
      expect(issuer.requests.some((line) => line.startsWith('GET /people/bob'))).toBe(true);
    } finally {
      await svc.stop();
    }
  });

  it('without it: refuses the same token with 401, and no request reaches the issuer', async () => {
    const svc = await startSvc(['-q']);
    try {
      expect(svc.output()).not.toContain('--allow-private-fetch');
      const url = await podGrantingBob(svc);
      issuer.requests.length = 0;
      const response = await dpopGet(url);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/DPoP realm="[^"]+", error="invalid_token", error_description="[^"]*127\.0\.0\.1 is a loopback address/);
      expect(issuer.requests).toEqual([]);
    } finally {
      await svc.stop();
    }
  });
});
