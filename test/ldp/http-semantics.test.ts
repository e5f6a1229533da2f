import { describe, expect, it } from 'vitest';
import { makeApp } from '../support/app.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

const PAST = 'Thu, 26 Nov 2020 12:07:19 GMT';
const FUTURE = 'Thu, 26 Nov 2099 12:07:19 GMT';

function world() {
  const { request } = makeApp({ public: true });
  const put = (path: string, body: string, headers: Record<string, string> = {}) => request(path, { method: 'PUT', body, headers: { 'content-type': 'text/plain', ...headers } });
  return { request, put };
}

describe('If-Unmodified-Since (RFC 9110 §13.1.4)', () => {
  it('refuses a PUT, DELETE or GET of a resource changed after the date with 412, and changes nothing', async () => {
    const { request, put } = world();
    expect((await put('/a.txt', 'first')).status).toBe(201);
    const refused = await put('/a.txt', 'second', { 'if-unmodified-since': PAST });
    expect(refused.status).toBe(412);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await request('/a.txt', { method: 'DELETE', headers: { 'if-unmodified-since': PAST } })).status).toBe(412);
    expect((await request('/a.txt', { headers: { 'if-unmodified-since': PAST } })).status).toBe(412);
    expect(await (await request('/a.txt')).text()).toBe('first');
  });

  it('lets them through when the resource is unchanged since, and is ignored with If-Match or a value that is no date', async () => {
    const { request, put } = world();
    expect((await put('/a.txt', 'first')).status).toBe(201);
    expect((await put('/a.txt', 'second', { 'if-unmodified-since': FUTURE })).status).toBe(204);
    expect((await put('/a.txt', 'third', { 'if-unmodified-since': 'yesterday' })).status).toBe(204);
    const etag = (await request('/a.txt')).headers.get('etag')!;
    expect((await put('/a.txt', 'fourth', { 'if-unmodified-since': PAST, 'if-match': etag })).status).toBe(204);
    expect((await request('/a.txt', { method: 'DELETE', headers: { 'if-unmodified-since': FUTURE } })).status).toBe(204);
  });
});

describe('If-Range (RFC 9110 §13.1.5)', () => {
  it('answers a Range request in part only when the validator is the current one, else the whole body', async () => {
    const { request, put } = world();
    expect((await put('/bin', 'abcdefghijklmnop', { 'content-type': 'application/octet-stream' })).status).toBe(201);
    const current = await request('/bin');
    const etag = current.headers.get('etag')!;
    const lastModified = current.headers.get('last-modified')!;
    const ranged = (ifRange: string) => request('/bin', { headers: { range: 'bytes=0-3', 'if-range': ifRange } });

    for (const validator of [etag, lastModified]) {
      const partial = await ranged(validator);
      expect(partial.status).toBe(206);
      expect(await partial.text()).toBe('abcd');
    }
    for (const validator of ['"bogus"', `W/${etag}`, PAST]) {
      const whole = await ranged(validator);
      expect(whole.status).toBe(200);
      expect(await whole.text()).toBe('abcdefghijklmnop');
    }
  });
});

describe('entity tags compared as RFC 9110 §8.8.3 says', () => {
  it('never matches a weak tag in If-Match, and does in If-None-Match', async () => {
    const { request, put } = world();
    expect((await put('/a.txt', 'first')).status).toBe(201);
    const etag = (await request('/a.txt')).headers.get('etag')!;
    expect((await put('/a.txt', 'second', { 'if-match': `W/${etag}` })).status).toBe(412);
    expect((await request('/a.txt', { headers: { 'if-match': `W/${etag}` } })).status).toBe(412);
    expect((await request('/a.txt', { headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304);
    expect(await (await request('/a.txt')).text()).toBe('first');
  });
});

describe('request bodies', () => {
  it('refuses a body in a content coding with 415 and Accept-Encoding: identity, and stores nothing', async () => {
    const { request, put } = world();
    for (const coding of ['gzip', 'br', 'identity, gzip']) {
      const refused = await put('/gz.txt', 'compressed bytes', { 'content-encoding': coding });
      expect(refused.status).toBe(415);
      expect(refused.headers.get('accept-encoding')).toBe('identity');
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
    }
    const posted = await request('/', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain', 'content-encoding': 'gzip' } });
    expect(posted.status).toBe(415);
    const patched = await request('/doc.ttl', { method: 'PATCH', body: 'INSERT DATA { <#a> <#b> <#c> . }', headers: { 'content-type': 'application/sparql-update', 'content-encoding': 'gzip' } });
    expect(patched.status).toBe(415);
    expect((await request('/gz.txt')).status).toBe(404);
    expect((await request('/doc.ttl')).status).toBe(404);
    expect((await put('/plain.txt', 'as sent', { 'content-encoding': 'identity' })).status).toBe(201);
  });

  it('answers a PATCH without Content-Type with 400, as PUT and POST', async () => {
    const { request } = world();
    // Bytes, not a string: a string body would be given text/plain by the Request constructor.
    const response = await request('/doc.ttl', { method: 'PATCH', body: new TextEncoder().encode('INSERT DATA { <#a> <#b> <#c> . }') });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { type: string }).type).toContain('missing-content-type');
  });
});

describe('PUT of a container', () => {
  it('refuses a body with 409 and creates nothing, and takes an empty or blank one', async () => {
    const { request } = world();
    const withBody = (path: string, body: string | Uint8Array<ArrayBuffer>) => request(path, { method: 'PUT', body, headers: { 'content-type': 'text/turtle' } });
    for (const body of ['<> <http://purl.org/dc/terms/title> "T".', '<> <http://www.w3.org/ns/ldp#contains> <x>.']) {
      const refused = await withBody('/c/', body);
      expect(refused.status).toBe(409);
      expect(((await refused.json()) as { type: string }).type).toContain('container-body');
      expect((await request('/c/')).status).toBe(404);
    }
    expect((await withBody('/empty/', new Uint8Array())).status).toBe(201);
    expect((await withBody('/blank/', '\n  \r\n')).status).toBe(201);
    expect((await request('/plain/', { method: 'PUT' })).status).toBe(201);
  });
});

describe('representations in several media types (RFC 9110 §8.8.1)', () => {
  it('give each its own strong ETag, revalidated on its own, while a write takes any of them', async () => {
    const { request } = makeApp({ public: true, conneg: true });
    const doc = JSON.stringify({ '@id': 'http://example.org/s', 'http://example.org/p': 'o' });
    expect((await request('/doc', { method: 'PUT', body: doc, headers: { 'content-type': 'application/ld+json' } })).status).toBe(201);
    expect((await request('/c/', { method: 'PUT' })).status).toBe(201);
    for (const path of ['/doc', '/c/']) {
      const tagOf = async (accept: string) => (await request(path, { headers: { accept } })).headers.get('etag')!;
      const jsonLd = await tagOf('application/ld+json');
      const turtle = await tagOf('text/turtle');
      const nTriples = await tagOf('application/n-triples');
      expect(new Set([jsonLd, turtle, nTriples]).size).toBe(3);
      expect((await request(path, { headers: { accept: 'text/turtle', 'if-none-match': jsonLd } })).status).toBe(200);
      expect((await request(path, { headers: { accept: 'text/turtle', 'if-none-match': turtle } })).status).toBe(304);
      expect((await request(path, { method: 'HEAD', headers: { accept: 'text/turtle' } })).headers.get('etag')).toBe(turtle);
    }
    const turtle = (await request('/doc', { headers: { accept: 'text/turtle' } })).headers.get('etag')!;
    expect((await request('/doc', { method: 'PUT', body: doc, headers: { 'content-type': 'application/ld+json', 'if-match': turtle } })).status).toBe(204);
    expect((await request('/doc', { method: 'PUT', body: doc, headers: { 'content-type': 'application/ld+json', 'if-match': turtle } })).status).toBe(412);
  });
});

describe('a read refused by its preconditions', () => {
  it('releases the body it opened (412 for If-Match and If-Unmodified-Since), as a 304 does', async () => {
    let cancelled = 0;
    class CountingDriver extends MemoryDriver {
      override async get(path: string, options?: { range?: { start: number; end?: number } }) {
        const stored = await super.get(path, options);
        if (stored) {
          const cancel = stored.body.cancel.bind(stored.body);
          stored.body.cancel = (reason?: unknown) => (cancelled++, cancel(reason));
        }
        return stored;
      }
    }
    const { request } = makeApp({ public: true }, new CountingDriver());
    expect((await request('/big.txt', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(100_000) })).status).toBe(201);
    const etag = (await request('/big.txt', { method: 'HEAD' })).headers.get('etag')!;
    expect((await request('/big.txt', { headers: { 'if-match': '"other"' } })).status).toBe(412);
    expect((await request('/big.txt', { headers: { 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' } })).status).toBe(412);
    expect((await request('/big.txt', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect(cancelled).toBe(3);
  });
});
