/**
 * WebID-TLS against a real `svc start --ssl-key --ssl-cert --webid-tls` process: certificates made by
 * openssl, a client that presents them through node:https, WebID profiles on the same server.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, startSvc, type RunningSvc } from '../support/server.ts';

const run = promisify(execFile);

let dir: string;
let svc: RunningSvc;
let ownerToken: string;

interface ClientIdentity {
  key: string;
  cert: string;
}

/** A self-signed client certificate with its own new RSA key; `san` as openssl's subjectAltName (`\#` keeps a fragment). */
async function clientCertificate(name: string, san: string | null): Promise<ClientIdentity & { modulus: string }> {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', `/CN=${name}`, ...(san ? ['-addext', `subjectAltName=${san}`] : [])]);
  const { stdout } = await run('openssl', ['x509', '-noout', '-modulus', '-in', cert]);
  return { key: await readFile(key, 'utf8'), cert: await readFile(cert, 'utf8'), modulus: stdout.trim().replace(/^Modulus=/, '') };
}

/** A request over HTTPS on a fresh connection (the server's certificate is self-signed), presenting `identity`'s certificate when given. */
function send(method: string, path: string, options: { identity?: ClientIdentity; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(`${svc.base}${path}`, { method, rejectUnauthorized: false, agent: false, headers: options.headers, ...options.identity }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, type: String(response.headers['content-type']), body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const get = (path: string, identity?: ClientIdentity, headers: Record<string, string> = {}) => send('GET', path, { ...(identity && { identity }), headers });

async function put(path: string, body: string): Promise<void> {
  const response = await send('PUT', path, { headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'text/turtle' }, body });
  expect(response.status, response.body).toBeLessThan(300);
}

const profileWithKey = (modulus: string) => `@prefix cert: <http://www.w3.org/ns/auth/cert#>.
@prefix xsd: <http://www.w3.org/2001/XMLSchema#>.
<#me> cert:key [ a cert:RSAPublicKey; cert:modulus "${modulus}"^^xsd:hexBinary; cert:exponent 65537 ].
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-webid-tls-'));
  await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'server.key'), '-out', join(dir, 'server.crt'), '-days', '1', '-subj', '/CN=127.0.0.1']);
  svc = await startSvc(['-q', '--conneg', '--ssl-key', join(dir, 'server.key'), '--ssl-cert', join(dir, 'server.crt'), '--webid-tls']);
  const created = await send('POST', '/.pods', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  ownerToken = (JSON.parse(created.body) as { token: string }).token;
  await put('/alice/people/.acl', `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#public> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`);
  await put('/alice/private/.acl', `@prefix acl: <http://www.w3.org/ns/auth/acl#>.
<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <${svc.base}/alice/people/bob.ttl#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.
`);
  await put('/alice/private/secret.ttl', '<#it> <#is> "secret".');
  await put('/alice/people/hello.ttl', '<#it> <#is> "public".');
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('svc start --webid-tls', () => {
  it('lets a certificate whose key the WebID profile states act as that WebID', async () => {
    const bob = await clientCertificate('bob', `URI:${svc.base}/alice/people/bob.ttl\\#me`);
    // Leading zeros and lower case: the profile's hexBinary need not be spelt as openssl prints it.
    await put('/alice/people/bob.ttl', profileWithKey(`00${bob.modulus.toLowerCase()}`));
    const secret = await get('/alice/private/secret.ttl', bob);
    expect(secret.status).toBe(200);
    expect(secret.body).toContain('secret');
    expect((await get('/alice/private/secret.ttl')).status).toBe(401);
  });

  it('leaves a certificate whose key is not in the profile anonymous: 401 where identity is needed, 200 on public data', async () => {
    const owner = await clientCertificate('owner-key', null);
    await put('/alice/people/carol.ttl', profileWithKey(owner.modulus));
    const mallory = await clientCertificate('mallory', `URI:${svc.base}/alice/people/carol.ttl\\#me`);
    const refused = await get('/alice/private/secret.ttl', mallory);
    expect(refused.status).toBe(401);
    expect(refused.type).toBe('application/problem+json');
    expect(refused.body).toContain('does not state the client certificate');
    expect((await get('/alice/people/hello.ttl', mallory)).status).toBe(200);
  });

  it('leaves a certificate whose WebID profile cannot be read anonymous, never a 5xx', async () => {
    const missing = await clientCertificate('missing', `URI:${svc.base}/alice/people/nobody\\#me`);
    const refused = await get('/alice/private/secret.ttl', missing);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('cannot be read');
    // A profile elsewhere that the guarded fetch may not reach (a loopback address without --allow-private-fetch).
    const unreachable = await clientCertificate('unreachable', 'URI:https://127.0.0.1:9/card\\#me');
    expect((await get('/alice/private/secret.ttl', unreachable)).status).toBe(401);
    expect((await get('/alice/people/hello.ttl', unreachable)).status).toBe(200);
  });

  it('ignores a certificate without a URI in its SubjectAlternativeName', async () => {
    const dnsOnly = await clientCertificate('dns-only', 'DNS:client.example');
    const refused = await get('/alice/private/secret.ttl', dnsOnly);
    expect(refused.status).toBe(401);
    expect(refused.body).not.toContain('certificate');
    expect((await get('/alice/people/hello.ttl', dnsOnly)).status).toBe(200);
  });

  it('still takes an Authorization header, which goes before any certificate', async () => {
    const bob = await clientCertificate('bob-again', `URI:${svc.base}/alice/people/bob.ttl\\#me`);
    expect((await get('/alice/private/secret.ttl', undefined, { authorization: `Bearer ${ownerToken}` })).status).toBe(200);
    expect((await get('/alice/private/secret.ttl', bob, { authorization: 'Bearer not-a-token' })).status).toBe(401);
  });
});

describe('svc start --webid-tls refusals', () => {
  it('refuses --webid-tls without --ssl-key and --ssl-cert', async () => {
    const result = await runSvc(['start', '-q', '-p', '0', '-h', '127.0.0.1', '--storage', 'memory', '--webid-tls']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--webid-tls needs --ssl-key and --ssl-cert');
  });
});
