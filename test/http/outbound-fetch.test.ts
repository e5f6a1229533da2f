import { describe, expect, it } from 'vitest';
import { outboundFetch, type SingleHopFetch } from '../../src/http/outbound-fetch.ts';
import { OutboundFetchRefused } from '../../src/http/outbound-guard.ts';

/** A fake network: answers by URL and records every URL asked, so a test can tell what was never asked. */
function fakeNetwork(routes: Record<string, () => Response>): { hop: SingleHopFetch; asked: string[]; headers: Headers[] } {
  const asked: string[] = [];
  const headers: Headers[] = [];
  const hop: SingleHopFetch = async (url, init) => {
    asked.push(url.href);
    headers.push(init.headers);
    const route = routes[url.href];
    return route ? route() : new Response('not found', { status: 404 });
  };
  return { hop, asked, headers };
}

const redirect = (location: string, status = 302) => () => new Response(null, { status, headers: { location } });

describe('the outbound fetch', () => {
  it('follows redirects itself and checks every hop: a redirect to loopback or to the metadata address is never asked', async () => {
    for (const target of ['http://127.0.0.1:8080/profile', 'http://169.254.169.254/latest/meta-data/', 'http://[::ffff:127.0.0.1]/', 'http://localhost/']) {
      const network = fakeNetwork({ 'https://webid.example/bob': redirect(target) });
      const fetch = outboundFetch(network.hop, { allowPrivate: false });
      await expect(fetch('https://webid.example/bob')).rejects.toThrow(OutboundFetchRefused);
      expect(network.asked).toEqual(['https://webid.example/bob']);
    }
  });

  it('refuses a forbidden first URL without asking the network', async () => {
    const network = fakeNetwork({});
    const fetch = outboundFetch(network.hop, { allowPrivate: false });
    await expect(fetch('http://169.254.169.254/')).rejects.toThrow(/link-local/);
    await expect(fetch('http://10.0.0.1/')).rejects.toThrow(/private/);
    expect(network.asked).toEqual([]);
  });

  it('lets private targets through with allowPrivate', async () => {
    const network = fakeNetwork({ 'http://127.0.0.1/a': redirect('/b'), 'http://127.0.0.1/b': () => new Response('here') });
    const response = await outboundFetch(network.hop, { allowPrivate: true })('http://127.0.0.1/a');
    expect(await response.text()).toBe('here');
    expect(response.url).toBe('http://127.0.0.1/b');
  });

  it('never sends credentials written into a URL, not even with allowPrivate, nor follows a redirect to one', async () => {
    const network = fakeNetwork({ 'http://127.0.0.1/a': redirect('http://user:secret@127.0.0.1/b') });
    const fetch = outboundFetch(network.hop, { allowPrivate: true });
    await expect(fetch('http://user:secret@127.0.0.1/a')).rejects.toThrow(/credentials/);
    await expect(fetch('http://127.0.0.1/a')).rejects.toThrow(/credentials/);
    expect(network.asked).toEqual(['http://127.0.0.1/a']);
  });

  it('with redirect: manual, answers the redirect itself and asks nothing more', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      const network = fakeNetwork({ 'https://hooks.example/in': redirect('https://elsewhere.example/in', status) });
      const response = await outboundFetch(network.hop, { allowPrivate: false })('https://hooks.example/in', { method: 'POST', body: '{}', redirect: 'manual' });
      expect(response.status).toBe(status);
      expect(response.headers.get('location')).toBe('https://elsewhere.example/in');
      expect(network.asked).toEqual(['https://hooks.example/in']);
    }
  });

  it('stops after the redirect limit', async () => {
    const routes: Record<string, () => Response> = {};
    for (let i = 0; i < 10; i++) routes[`https://loop.example/${i}`] = redirect(`/${i + 1}`, 301);
    const network = fakeNetwork(routes);
    const fetch = outboundFetch(network.hop, { allowPrivate: false, limits: { maxRedirects: 5 } });
    await expect(fetch('https://loop.example/0')).rejects.toThrow(/more than 5 redirects/);
    expect(network.asked).toHaveLength(6);
  });

  it('refuses bodies over the size limit, declared or streamed', async () => {
    const big = 'x'.repeat(2000);
    const streamed = () =>
      new Response(new ReadableStream({ start: (controller) => (controller.enqueue(new TextEncoder().encode(big)), controller.close()) }));
    const network = fakeNetwork({ 'https://a.example/declared': () => new Response(big), 'https://a.example/streamed': streamed });
    const fetch = outboundFetch(network.hop, { allowPrivate: false, limits: { maxBytes: 1000 } });
    await expect(fetch('https://a.example/declared')).rejects.toThrow(/larger than 1000 bytes/);
    await expect(fetch('https://a.example/streamed')).rejects.toThrow(/larger than 1000 bytes/);
    expect(await (await fetch('https://a.example/missing')).text()).toBe('not found');
  });

  it('gives up when the answer does not come within the time limit', async () => {
    const hop: SingleHopFetch = (_url, init) =>
      new Promise((_resolve, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
    await expect(outboundFetch(hop, { allowPrivate: false, limits: { timeoutMs: 50 } })('https://slow.example/')).rejects.toThrow(/no complete answer within 50 ms/);
  });

  it('says who is asking, and drops Authorization on a redirect to another origin', async () => {
    const network = fakeNetwork({ 'https://a.example/': redirect('https://b.example/'), 'https://b.example/': () => new Response('ok') });
    const fetch = outboundFetch(network.hop, { allowPrivate: false, serverUrl: () => 'https://pods.example/' });
    await fetch('https://a.example/', { headers: { authorization: 'Bearer secret', accept: 'text/turtle' } });
    expect(network.headers[0]!.get('user-agent')).toMatch(/^svc\/\d+\.\d+\.\d+ \(\+https:\/\/pods\.example\/\)$/);
    expect(network.headers[0]!.get('authorization')).toBe('Bearer secret');
    expect(network.headers[1]!.get('authorization')).toBeNull();
    expect(network.headers[1]!.get('accept')).toBe('text/turtle');
  });
});
