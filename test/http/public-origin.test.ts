import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.ts';
import { resolveConfig } from '../../src/config/resolve.ts';
import { clientBaseUrl } from '../../src/http/public-origin.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { ACL_PREFIXES } from '../wac/pods.ts';

const PUBLIC = 'https://pods.example.org';
/** Where the reverse proxy sends requests: the address the server listens on. */
const INTERNAL = 'http://127.0.0.1:3000';

function appAt(flags: Record<string, unknown>) {
  const config = resolveConfig({ flags: { quiet: true, rateLimit: false, ...flags } });
  const app = createApp(config, { runtime: 'test', storage: new MemoryDriver(), log: () => undefined });
  return (url: string, init: RequestInit = {}) => app.fetch(new Request(url, init));
}

const createPod = (name: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ name }),
});

describe('--base-url', () => {
  it('gives WebIDs, Location, Link and ACL IRIs the public origin when the proxy keeps the Host header', async () => {
    // nginx with `proxy_set_header Host $host`: the request reaches the server as http://pods.example.org/...
    const fetch = appAt({ baseUrl: PUBLIC });
    const created = await fetch('http://pods.example.org/.pods', createPod('alice'));
    expect(created.status).toBe(201);
    const { webId, podUri, token } = (await created.json()) as { webId: string; podUri: string; token: string };
    expect(webId).toBe(`${PUBLIC}/alice/#me`);
    expect(podUri).toBe(`${PUBLIC}/alice/`);
    expect(created.headers.get('location')).toBe(`${PUBLIC}/alice/`);

    const auth = { authorization: `Bearer ${token}` };
    const posted = await fetch('http://pods.example.org/alice/', { method: 'POST', headers: { ...auth, 'content-type': 'text/plain', slug: 'note' }, body: 'hi' });
    expect(posted.headers.get('location')).toBe(`${PUBLIC}/alice/note`);
    const read = await fetch('http://pods.example.org/alice/note', { headers: auth });
    expect(read.headers.get('link')).toContain(`<${PUBLIC}/alice/note.acl>; rel="acl"`);

    // An ACL naming the owner by the public WebID is this server's owner.
    const acl = `${ACL_PREFIXES}<#o> a acl:Authorization; acl:agent <${webId}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.\n`;
    const put = await fetch('http://pods.example.org/alice/shared/.acl', { method: 'PUT', headers: { ...auth, 'content-type': 'text/turtle' }, body: acl });
    expect(put.status).toBe(201);
    expect((await fetch('http://pods.example.org/alice/shared/', { headers: auth })).status).toBe(200);
    expect((await fetch('http://pods.example.org/alice/shared/')).status).toBe(401);
  });

  it('answers 421 for other hosts, with a problem body and CORS headers', async () => {
    const fetch = appAt({ baseUrl: PUBLIC });
    for (const url of [`${INTERNAL}/`, 'http://evil.example/alice/']) {
      const refused = await fetch(url, { headers: { origin: 'https://app.example' } });
      expect(refused.status).toBe(421);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(refused.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect((await refused.json()).detail).toContain('--base-url');
    }
  });

  it('with --trust-proxy, answers as the public origin when X-Forwarded-Host and -Proto name it', async () => {
    const forwarded = { 'x-forwarded-host': 'pods.example.org', 'x-forwarded-proto': 'https' };
    const trusting = appAt({ baseUrl: PUBLIC, trustProxy: true });
    const created = await trusting(`${INTERNAL}/.pods`, createPod('alice', forwarded));
    expect(created.status).toBe(201);
    expect(((await created.json()) as { webId: string }).webId).toBe(`${PUBLIC}/alice/#me`);
    expect((await trusting(`${INTERNAL}/alice/`, { headers: { ...forwarded, 'x-forwarded-proto': 'http' } })).status).toBe(421);
    expect((await trusting(`${INTERNAL}/alice/`, { headers: { ...forwarded, 'x-forwarded-host': 'evil.example' } })).status).toBe(421);
    // Without --trust-proxy the forwarded headers are anyone's to send: they decide nothing.
    expect((await appAt({ baseUrl: PUBLIC })(`${INTERNAL}/.pods`, createPod('alice', forwarded))).status).toBe(421);
  });

  it('keeps a non-default port of the public origin, and leaves the request URL alone without the option', async () => {
    const fetch = appAt({ baseUrl: 'http://localhost:8080' });
    const created = await fetch('http://localhost:8080/.pods', createPod('alice'));
    expect(((await created.json()) as { webId: string }).webId).toBe('http://localhost:8080/alice/#me');
    expect((await fetch('http://localhost:3000/')).status).toBe(421);
    const plain = await appAt({})(`${INTERNAL}/.pods`, createPod('alice'));
    expect(((await plain.json()) as { webId: string }).webId).toBe(`${INTERNAL}/alice/#me`);
  });

  it('refuses a base URL with a path, or beside --allowed-hosts', () => {
    expect(() => appAt({ baseUrl: 'https://example.org/pods/' })).toThrow(/--base-url .*origin alone/);
    expect(() => appAt({ baseUrl: 'ftp://example.org' })).toThrow(/--base-url/);
    expect(() => appAt({ baseUrl: PUBLIC, allowedHosts: 'pods.example.org' })).toThrow(/leave out --allowed-hosts/);
  });
});

describe('clientBaseUrl', () => {
  it('prints a URL a client can open: the base URL, else a wildcard bind address as localhost', () => {
    const config = (flags: Record<string, unknown>) => resolveConfig({ flags });
    expect(clientBaseUrl(config({}), 'http://0.0.0.0:3000/')).toBe('http://localhost:3000/');
    expect(clientBaseUrl(config({}), 'http://[::]:3000/')).toBe('http://localhost:3000/');
    expect(clientBaseUrl(config({}), 'https://127.0.0.1:4443/')).toBe('https://127.0.0.1:4443/');
    expect(clientBaseUrl(config({ baseUrl: PUBLIC }), 'http://127.0.0.1:3000/')).toBe(`${PUBLIC}/`);
    // Subdomain mode: the base domain, where pods are created, on the port bound.
    expect(clientBaseUrl(config({ subdomains: true, baseDomain: 'localhost' }), 'http://127.0.0.1:3000/')).toBe('http://localhost:3000/');
  });
});
