import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.ts';
import { CERTIFICATE_VERDICT_TTL_MS } from '../../../src/auth/webid-tls/verifier.ts';
import { ConfigError, resolveConfig } from '../../../src/config/resolve.ts';
import { MemoryDriver } from '../../../storage-drivers/memory.ts';
import { BASE, makeApp } from '../../support/app.ts';

const run = promisify(execFile);
const WEBID = `${BASE}/alice/people/bob.ttl#me`;
let dir: string;
let der: Uint8Array;
let modulus: string;

/** A self-signed certificate (DER) for `webId` with a new RSA key, and the key's modulus as openssl prints it. */
async function certificateFor(name: string, webId: string): Promise<{ der: Uint8Array; modulus: string }> {
  const pem = join(dir, `${name}.pem`);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, `${name}.key`), '-out', pem, '-days', '1', '-subj', `/CN=${name}`, '-addext', `subjectAltName=URI:${webId.replace('#', '\\#')}`]);
  await run('openssl', ['x509', '-in', pem, '-outform', 'DER', '-out', join(dir, `${name}.der`)]);
  return { der: new Uint8Array(await readFile(join(dir, `${name}.der`))), modulus: (await run('openssl', ['x509', '-noout', '-modulus', '-in', pem])).stdout.trim().replace('Modulus=', '') };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-webid-tls-'));
  ({ der, modulus } = await certificateFor('bob', WEBID));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('--webid-tls at startup', () => {
  it('is refused on runtimes that do not expose client certificates, saying why', () => {
    const config = resolveConfig({ flags: { quiet: true, webidTls: true, sslKey: 'k.pem', sslCert: 'c.pem' } });
    for (const runtime of ['deno', 'bun', 'workers']) {
      const start = () => createApp(config, { runtime, storage: new MemoryDriver(), log: () => undefined });
      expect(start).toThrow(ConfigError);
      expect(start).toThrow(runtime === 'workers' ? 'Cloudflare terminates TLS' : `the ${runtime} runtime's HTTPS server does not expose them`);
    }
  });

  it('is refused without --ssl-key and --ssl-cert', () => {
    const config = resolveConfig({ flags: { quiet: true, webidTls: true } });
    expect(() => createApp(config, { runtime: 'node', storage: new MemoryDriver(), log: () => undefined, peerCertificate: () => null })).toThrow('--webid-tls needs --ssl-key and --ssl-cert');
  });
});

const withCertificates = (now: () => number = Date.now) =>
  makeApp({ webidTls: true, sslKey: 'k.pem', sslCert: 'c.pem', conneg: true }, new MemoryDriver(), {
    now,
    peerCertificate: (_request, env) => (env as { der?: Uint8Array } | undefined)?.der ?? null,
  });

describe('the WebID-TLS verifier', () => {
  it("accepts the WebID of a pod on this server, whose profile is the JSON-LD island of the pod's index.html", async () => {
    let now = Date.now();
    const { app, request } = withCertificates(() => now);
    const created = await request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    const { token } = (await created.json()) as { token: string };
    const alice = await certificateFor('alice', `${BASE}/alice/#me`);
    const asAlice = () => app.fetch(new Request(`${BASE}/alice/private/`), { der: alice.der });
    expect((await asAlice()).status).toBe(401);
    const html = await (await request('/alice/index.html', { headers: { authorization: `Bearer ${token}` } })).text();
    const island = /(<script type="application\/ld\+json">)([\s\S]*?)(<\/script>)/.exec(html)!;
    const graph = JSON.parse(island[2]!) as { '@graph': Record<string, unknown>[] };
    graph['@graph'].find((node) => node['@id'] === '#me')!['http://www.w3.org/ns/auth/cert#key'] = {
      'http://www.w3.org/ns/auth/cert#modulus': alice.modulus,
      'http://www.w3.org/ns/auth/cert#exponent': 65537,
    };
    const edited = html.replace(island[0], `${island[1]}${JSON.stringify(graph)}${island[3]}`);
    expect((await request('/alice/index.html', { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/html' }, body: edited })).status).toBeLessThan(300);
    now += CERTIFICATE_VERDICT_TTL_MS;
    const accepted = await asAlice();
    expect(accepted.status, await accepted.clone().text()).toBe(200);
  });

  it('believes what a profile said about a certificate for a few seconds, then reads it again', async () => {
    let now = Date.now();
    const { app, request } = withCertificates(() => now);
    const created = await request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
    const { token } = (await created.json()) as { token: string };
    const put = (path: string, body: string) => request(path, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'text/turtle' }, body });
    expect((await put('/alice/people/.acl', `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#public> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
<#bob> a acl:Authorization; acl:agent <${WEBID}>; acl:accessTo <./>; acl:mode acl:Write.`)).status).toBeLessThan(300);
    const profile = (stated: string) => `@prefix cert: <http://www.w3.org/ns/auth/cert#>. <#me> cert:key [ cert:modulus "${stated}"; cert:exponent 65537 ].`;
    expect((await put('/alice/people/bob.ttl', profile(modulus))).status).toBeLessThan(300);
    // Bob may write the container (a POST) but the public may not.
    const post = () => app.fetch(new Request(`${BASE}/alice/people/`, { method: 'POST', headers: { 'content-type': 'text/turtle' }, body: '<#a> <#b> <#c>.' }), { der });
    expect((await post()).status).toBe(201);
    expect((await put('/alice/people/bob.ttl', profile('c0ffee'))).status).toBeLessThan(300);
    expect((await post()).status).toBe(201);
    now += CERTIFICATE_VERDICT_TTL_MS;
    const refused = await post();
    expect(refused.status).toBe(401);
    expect(await refused.text()).toContain(`the WebID profile ${WEBID} does not state the client certificate's key`);
  });
});
