import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';
import { guardedLookup, nodeOutboundFetch } from '../../runtimes/node/outbound-fetch.ts';

let server: Server;
let origin: string;
const seen: { url: string; userAgent: string | undefined }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url!, userAgent: req.headers['user-agent'] });
    if (req.url === '/redirect') res.writeHead(302, { location: '/profile' }).end();
    else if (req.url === '/big') res.end('x'.repeat(3000));
    else res.writeHead(200, { 'content-type': 'text/turtle' }).end('<#me> a <http://xmlns.com/foaf/0.1/Person>.');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver that knows only the names given, so nothing here asks the real DNS. */
const fakeResolver = (names: Record<string, string[]>) => async (hostname: string): Promise<LookupAddress[]> => {
  const addresses = names[hostname];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

function lookupOnce(lookup: ReturnType<typeof guardedLookup>, hostname: string, all: boolean) {
  return new Promise<{ error: Error | null; result: unknown }>((resolve) =>
    lookup(hostname, { all }, (error: Error | null, address: unknown, family?: number) => resolve({ error, result: all ? address : [address, family] })),
  );
}

describe('the Node outbound fetch', () => {
  it('connects only to resolved addresses that pass the guard', async () => {
    const lookup = guardedLookup(fakeResolver({ 'mixed.example': ['127.0.0.1', '93.184.215.14'], 'inside.example': ['10.0.0.7', '::1'] }), false);
    expect(await lookupOnce(lookup, 'mixed.example', true)).toEqual({ error: null, result: [{ address: '93.184.215.14', family: 4 }] });
    expect(await lookupOnce(lookup, 'mixed.example', false)).toEqual({ error: null, result: ['93.184.215.14', 4] });
    const refused = await lookupOnce(lookup, 'inside.example', false);
    expect(refused.error).toBeInstanceOf(OutboundFetchRefused);
    expect(refused.error!.message).toMatch(/inside\.example resolves to 10\.0\.0\.7, a private address/);
  });

  it('refuses loopback targets, by address or by a name that resolves there, before any request is sent', async () => {
    const fetch = nodeOutboundFetch({ allowPrivate: false, resolve: fakeResolver({ 'rebound.example': ['127.0.0.1'] }) });
    const before = seen.length;
    await expect(fetch(`${origin}/profile`)).rejects.toThrow(/127\.0\.0\.1 is a loopback address/);
    await expect(fetch(`http://rebound.example:${new URL(origin).port}/profile`)).rejects.toThrow(/resolves to 127\.0\.0\.1, a loopback address/);
    await expect(fetch('http://169.254.169.254/latest/meta-data/')).rejects.toThrow(/link-local/);
    expect(seen.length).toBe(before);
  });

  it('with allowPrivate, fetches from loopback, connecting to the address the resolver gave, and follows redirects', async () => {
    const fetch = nodeOutboundFetch({ allowPrivate: true, resolve: fakeResolver({ 'named.test': ['127.0.0.1'] }), serverUrl: () => 'http://pods.test/' });
    const response = await fetch(`http://named.test:${new URL(origin).port}/redirect`);
    expect(response.status).toBe(200);
    expect(response.url).toBe(`http://named.test:${new URL(origin).port}/profile`);
    expect(response.headers.get('content-type')).toBe('text/turtle');
    expect(await response.text()).toContain('foaf');
    expect(seen.at(-1)).toEqual({ url: '/profile', userAgent: expect.stringMatching(/^svc\/[\d.]+ \(\+http:\/\/pods\.test\/\)$/) });
  });

  it('never reuses a connection another fetch opened without the guard', async () => {
    const names = fakeResolver({ 'shared.test': ['127.0.0.1'] });
    const port = new URL(origin).port;
    const open = nodeOutboundFetch({ allowPrivate: true, resolve: names });
    const guarded = nodeOutboundFetch({ allowPrivate: false, resolve: names });
    expect((await open(`http://shared.test:${port}/profile`)).status).toBe(200);
    const before = seen.length;
    await expect(guarded(`http://shared.test:${port}/profile`)).rejects.toThrow(/loopback/);
    expect(seen.length).toBe(before);
  });

  it('refuses an answer over the size limit', async () => {
    const fetch = nodeOutboundFetch({ allowPrivate: true, limits: { maxBytes: 1000 } });
    await expect(fetch(`${origin}/big`)).rejects.toThrow(/larger than 1000 bytes/);
  });
});
