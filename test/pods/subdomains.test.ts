import { describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../src/config/resolve.ts';
import { createApp } from '../../src/app.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';

const MAIN = 'http://pods.test';
const ALICE = 'http://alice.pods.test';
const BOB = 'http://bob.pods.test';
const TURTLE = 'text/turtle';
const ACL_PREFIXES = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n';

interface Pod {
  name: string;
  webId: string;
  podUri: string;
  token: string;
}

/** A subdomain-mode app on the memory driver with pods alice and bob; `send` takes absolute URLs. */
async function subdomainWorld(flags: Record<string, unknown> = {}) {
  const world = makeApp({ public: false, conneg: true, subdomains: true, baseDomain: 'pods.test', ...flags });
  const send = async (url: string, init: RequestInit = {}, who?: Pod) => {
    const headers = new Headers(init.headers);
    if (who) headers.set('authorization', `Bearer ${who.token}`);
    return world.app.fetch(new Request(url, { ...init, headers }));
  };
  const createPod = async (name: string, origin = MAIN) => {
    const response = await send(`${origin}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name }) });
    return { response, pod: (response.status === 201 ? await response.json() : await response.text()) as Pod };
  };
  const alice = (await createPod('alice')).pod;
  const bob = (await createPod('bob')).pod;
  const putText = (url: string, body: string, who?: Pod) => send(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body }, who);
  return { ...world, send, createPod, putText, alice, bob };
}

describe('subdomain mode: startup', () => {
  const start = (flags: Record<string, unknown>) => () => createApp(resolveConfig({ flags: { quiet: true, ...flags } }), { runtime: 'test', storage: new MemoryDriver(), log: () => {} });

  it('refuses --subdomains without --base-domain, explaining the wildcard DNS record', () => {
    expect(start({ subdomains: true })).toThrow(ConfigError);
    expect(start({ subdomains: true })).toThrow(/--base-domain[\s\S]*wildcard[\s\S]*\*\.pods\.example\.org/);
  });

  it('refuses --base-domain without --subdomains, a malformed domain, and --base-url beside it', () => {
    expect(start({ baseDomain: 'pods.test' })).toThrow(/--subdomains/);
    expect(start({ subdomains: true, baseDomain: 'https://pods.test/' })).toThrow(/not a domain name/);
    expect(start({ subdomains: true, baseDomain: 'pods.test', baseUrl: 'https://pods.test' })).toThrow(/--base-url/);
  });
});

describe('subdomain mode: pods', () => {
  it('creates pods on the base domain; the answer names the pod host, its WebID is <pod host>/#me', async () => {
    const { createPod, alice } = await subdomainWorld();
    expect(alice).toMatchObject({ name: 'alice', webId: `${ALICE}/#me`, podUri: `${ALICE}/` });
    const { response, pod } = await createPod('carol', 'http://pods.test:8443');
    expect(response.headers.get('location')).toBe('http://carol.pods.test:8443/');
    expect(pod).toMatchObject({ webId: 'http://carol.pods.test:8443/#me', podUri: 'http://carol.pods.test:8443/' });
  });

  it('refuses a pod name that cannot be a host label', async () => {
    const { createPod } = await subdomainWorld();
    for (const name of ['under_score', '-dash', 'dash-']) expect((await createPod(name)).response.status).toBe(400);
  });

  it('serves the pod at its host root and keeps the storage layout (/<name>/ on disk)', async () => {
    const { send, putText, storage, alice } = await subdomainWorld();
    const profile = await send(`${ALICE}/`, { headers: { accept: TURTLE } });
    expect(profile.status).toBe(200);
    expect(await profile.text()).toContain('<#me>');
    const created = await putText(`${ALICE}/private/note.txt`, 'secret', alice);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${ALICE}/private/note.txt`);
    expect(created.headers.get('link')).toContain(`<${ALICE}/private/note.txt.acl>; rel="acl"`);
    expect(await storage.head('/alice/private/note.txt')).not.toBeNull();
    expect(await (await send(`${ALICE}/private/note.txt`, {}, alice)).text()).toBe('secret');
  });

  it('moves /<name>/x on the base domain to /x on the pod host with a 308, for every method', async () => {
    const { send, alice } = await subdomainWorld();
    const read = await send(`${MAIN}/alice/public/x?y=1`);
    expect(read.status).toBe(308);
    expect(read.headers.get('location')).toBe(`${ALICE}/public/x?y=1`);
    const write = await send('http://pods.test:3000/alice/private/x', { method: 'PUT', body: 'x' }, alice);
    expect(write.status).toBe(308);
    expect(write.headers.get('location')).toBe('http://alice.pods.test:3000/private/x');
  });

  it('lists pods in the root container by their hosts, and members of a pod container on the pod host', async () => {
    const { send, putText, alice } = await subdomainWorld();
    const root = await (await send(`${MAIN}/`, { headers: { accept: 'application/n-triples' } })).text();
    expect(root).toContain(`<${ALICE}/>`);
    expect(root).toContain(`<${BOB}/>`);
    expect((await putText(`${ALICE}/public/a.txt`, 'a', alice)).status).toBe(201);
    const listing = await (await send(`${ALICE}/public/`, { headers: { accept: 'application/n-triples' } })).text();
    expect(listing).toContain(`<${ALICE}/public/> <http://www.w3.org/ns/ldp#contains> <${ALICE}/public/a.txt>`);
  });

  it('resolves IRIs in RDF against the pod host, a root-relative one included', async () => {
    const { send, alice } = await subdomainWorld();
    const turtle = '<#it> <http://example.org/sees> </public/x>, <other>.';
    expect((await send(`${ALICE}/public/doc.ttl`, { method: 'PUT', headers: { 'content-type': TURTLE }, body: turtle }, alice)).status).toBe(201);
    const triples = (await (await send(`${ALICE}/public/doc.ttl`, { headers: { accept: 'application/n-triples' } })).text()).trim().split('\n').sort();
    expect(triples).toEqual([
      `<${ALICE}/public/doc.ttl#it> <http://example.org/sees> <${ALICE}/public/other> .`,
      `<${ALICE}/public/doc.ttl#it> <http://example.org/sees> <${ALICE}/public/x> .`,
    ]);
  });

  it('leaves POST /.pods on a pod host to the pod (a resource, so 405): no pod is created there', async () => {
    const { send, createPod } = await subdomainWorld();
    expect((await createPod('carol', ALICE)).response.status).toBe(405);
    expect((await send('http://carol.pods.test/')).status).toBe(404);
  });
});

describe('subdomain mode: hosts', () => {
  it('answers 404 for a pod host without a pod and for a host that is neither the base domain nor a pod', async () => {
    const { send } = await subdomainWorld();
    for (const url of ['http://nobody.pods.test/', 'http://elsewhere.test/', 'http://a.b.pods.test/', 'http://idp.pods.test/']) {
      const response = await send(url);
      expect(response.status, url).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
    }
  });

  it('answers 421 for other hosts with --allowed-hosts, whose hosts it serves as the base domain', async () => {
    const { send } = await subdomainWorld({ allowedHosts: 'localhost' });
    expect((await send('http://elsewhere.test/')).status).toBe(421);
    expect((await send('http://nobody.pods.test/')).status).toBe(404);
    expect((await send(`${ALICE}/`)).status).toBe(200);
    const moved = await send('http://localhost/alice/public/');
    expect(moved.status).toBe(308);
    expect(moved.headers.get('location')).toBe(`${ALICE}/public/`);
  });
});

describe('subdomain mode: access control', () => {
  it('tells pod owners apart, though every WebID has the path /#me', async () => {
    const { send, putText, alice, bob } = await subdomainWorld();
    expect((await putText(`${ALICE}/private/diary.txt`, 'dear diary', alice)).status).toBe(201);
    expect((await send(`${ALICE}/private/diary.txt`)).status).toBe(401);
    expect((await send(`${ALICE}/private/diary.txt`, {}, bob)).status).toBe(403);
    expect((await putText(`${ALICE}/private/diary.txt`, 'bob was here', bob)).status).toBe(403);
    expect((await send(`${ALICE}/.acl`, {}, bob)).status).toBe(403);
    expect((await putText(`${BOB}/private/own.txt`, 'mine', bob)).status).toBe(201);
  });

  it('grants what an ACL written with pod-host IRIs grants', async () => {
    const { send, putText, alice, bob } = await subdomainWorld();
    expect((await putText(`${ALICE}/private/shared.txt`, 'for bob', alice)).status).toBe(201);
    const acl = `${ACL_PREFIXES}<#owner> a acl:Authorization; acl:agent <${alice.webId}>; acl:accessTo <${ALICE}/private/shared.txt>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <${bob.webId}>; acl:accessTo <./shared.txt>; acl:mode acl:Read.\n`;
    expect((await send(`${ALICE}/private/shared.txt.acl`, { method: 'PUT', headers: { 'content-type': TURTLE }, body: acl }, alice)).status).toBe(201);
    expect(await (await send(`${ALICE}/private/shared.txt`, {}, bob)).text()).toBe('for bob');
    expect((await putText(`${ALICE}/private/shared.txt`, 'changed', bob)).status).toBe(403);
    expect((await send(`${ALICE}/private/shared.txt`, {}, alice)).status).toBe(200);
  });

  it('answers WAC-Allow on the pod host for the owner', async () => {
    const { send, alice } = await subdomainWorld();
    expect((await send(`${ALICE}/`, { method: 'HEAD' }, alice)).headers.get('wac-allow')).toBe('user="read write append control",public="read"');
  });
});

describe('subdomain mode: notifications and quotas', () => {
  it('points Updates-Via and the storage description at the pod host', async () => {
    const { send } = await subdomainWorld({ notifications: true });
    const response = await send(`${ALICE}/public/`, { method: 'HEAD' });
    expect(response.headers.get('updates-via')).toBe('ws://alice.pods.test/.notifications');
    expect(response.headers.get('link')).toContain(`<${ALICE}/.well-known/solid>`);
  });

  it('counts a pod-host write against that pod’s quota', async () => {
    const { putText, alice } = await subdomainWorld({ defaultQuota: '2KB' });
    expect((await putText(`${ALICE}/private/big.txt`, 'x'.repeat(4000), alice)).status).toBe(507);
  });
});

describe('subdomain mode: identity provider and data browser', () => {
  it('names the base domain as issuer on a pod host: discovery, the pod answer, the profile and the UI shell', async () => {
    const { app } = makeApp({ public: false, conneg: true, subdomains: true, baseDomain: 'pods.test', idp: true, databrowserCdn: true, uiShell: true });
    const created = await app.fetch(
      new Request(`${MAIN}/.pods`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice', email: 'alice@example.org', password: 'a long password' }) }),
    );
    expect(await created.json()).toMatchObject({ webId: `${ALICE}/#me`, podUri: `${ALICE}/`, idpIssuer: `${MAIN}/` });
    expect(await (await app.fetch(new Request(`${ALICE}/.well-known/openid-configuration`))).json()).toMatchObject({ issuer: `${MAIN}/` });
    const profile = await (await app.fetch(new Request(`${ALICE}/`, { headers: { accept: 'application/n-triples' } }))).text();
    expect(profile).toContain(`<${ALICE}/#me> <http://www.w3.org/ns/solid/terms#oidcIssuer> <${MAIN}/>`);
    const wrapper = await (await app.fetch(new Request(`${ALICE}/settings/publicTypeIndex`, { headers: { accept: 'text/html,*/*;q=0.8' } }))).text();
    expect(wrapper).toContain(`data-issuer="${MAIN}/"`);
    const login = await app.fetch(new Request(`${MAIN}/idp/credentials`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'alice@example.org', password: 'a long password' }) }));
    expect(await login.json()).toMatchObject({ webid: `${ALICE}/#me` });
  });
});

describe('subdomain mode: live reload', () => {
  it('watches the page path on the socket’s pod host: a private page of the pod needs Read', async () => {
    const { app, alice, putText } = await subdomainWorld({ liveReload: true });
    expect((await putText(`${ALICE}/public/page.html`, 'page', alice)).status).toBe(201);
    const watch = (path: string, token?: string) =>
      app.upgradeWebSocket!(new Request(`ws://alice.pods.test/.live-reload?path=${encodeURIComponent(path)}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }));
    expect(await watch('/public/page.html')).toHaveProperty('accept');
    const refused = await watch('/private/page.html');
    expect(refused && 'refuse' in refused && refused.refuse.status).toBe(401);
    expect(await watch('/private/page.html', alice.token)).toHaveProperty('accept');
  });
});
