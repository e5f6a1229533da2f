import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { describe, expect, it, onTestFinished } from 'vitest';
import { measurePodUsage, readQuotaRecord } from '../../src/quota/record.ts';
import { MAX_SEGMENT_BYTES } from '../../src/storage/paths.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { BASE, makeApp } from '../support/app.ts';

/** An owner's pod with a quota, on a fresh fs data directory (where long names met the 255-byte file name limit). */
async function fsPod() {
  const root = await mkdtemp(join(tmpdir(), 'svc-names-'));
  onTestFinished(() => rm(root, { recursive: true, force: true }));
  const test = makeApp({ public: false, defaultQuota: '1MB' }, await FsDriver.open(root));
  const made = await test.request('/.pods', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'alice' }) });
  expect(made.status).toBe(201);
  const { token } = (await made.json()) as { token: string };
  const webId = decodeJwt(token).webid as string;
  const as = (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('authorization', `Bearer ${token}`);
    return test.request(path, { ...init, headers });
  };
  return { ...test, as, webId };
}

const longest = 's'.repeat(MAX_SEGMENT_BYTES);
const tooLong = 's'.repeat(MAX_SEGMENT_BYTES + 1);

describe('segment length', () => {
  it('is 240 bytes', () => {
    expect(MAX_SEGMENT_BYTES).toBe(240);
  });

  it('serves, counts and deletes a resource with the longest name and a type the name does not imply', async () => {
    const { as, storage, webId } = await fsPod();
    const posted = await as('/alice/', { method: 'POST', body: 'long', headers: { 'content-type': 'text/plain', slug: longest } });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('location')).toBe(`${BASE}/alice/${longest}`);
    expect((await readQuotaRecord(storage, '/alice/'))!.record.used).toBe(await measurePodUsage(storage, '/alice/'));
    const read = await as(`/alice/${longest}`);
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toBe('text/plain');
    expect((await as(`/alice/${longest}`, { method: 'HEAD' })).status).toBe(200);
    // Its ACL, even as JSON-LD (a sidecar beside `<name>.acl`), has room within the file name limit.
    const acl = JSON.stringify({
      '@id': '#owner',
      '@type': 'http://www.w3.org/ns/auth/acl#Authorization',
      'http://www.w3.org/ns/auth/acl#agent': { '@id': webId },
      'http://www.w3.org/ns/auth/acl#accessTo': { '@id': `./${longest}` },
      'http://www.w3.org/ns/auth/acl#mode': [{ '@id': 'http://www.w3.org/ns/auth/acl#Read' }, { '@id': 'http://www.w3.org/ns/auth/acl#Write' }, { '@id': 'http://www.w3.org/ns/auth/acl#Control' }],
    });
    expect((await as(`/alice/${longest}.acl`, { method: 'PUT', body: acl, headers: { 'content-type': 'application/ld+json' } })).status).toBe(201);
    expect((await as(`/alice/${longest}.acl`)).status).toBe(200);
    expect((await as(`/alice/${longest}`)).status).toBe(200);
    expect((await as(`/alice/${longest}`, { method: 'DELETE' })).status).toBe(204);
    expect((await as(`/alice/${longest}`)).status).toBe(404);
    expect((await readQuotaRecord(storage, '/alice/'))!.record.used).toBe(await measurePodUsage(storage, '/alice/'));
  });

  it('gives a Slug that is too long a fresh name', async () => {
    const { as } = await fsPod();
    for (const slug of [tooLong, 'é'.repeat(MAX_SEGMENT_BYTES / 2 + 1), 's'.repeat(252)]) {
      const posted = await as('/alice/', { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain', slug: encodeURIComponent(slug) } });
      expect(posted.status).toBe(201);
      expect(posted.headers.get('location')).toMatch(new RegExp(`^${BASE}/alice/[0-9a-f-]{36}$`));
    }
  });

  it('refuses longer segments on every method with 400, storing nothing', async () => {
    const { as, storage } = await fsPod();
    const usedBefore = await measurePodUsage(storage, '/alice/');
    for (const segment of [tooLong, 's'.repeat(252), 's'.repeat(255), encodeURIComponent('é'.repeat(MAX_SEGMENT_BYTES / 2 + 1))]) {
      for (const init of [
        { method: 'GET' },
        { method: 'HEAD' },
        { method: 'DELETE' },
        { method: 'PUT', body: 'x', headers: { 'content-type': 'text/plain' } },
        { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } },
        { method: 'PATCH', body: 'INSERT DATA { <a> <b> <c> }', headers: { 'content-type': 'application/sparql-update' } },
      ]) {
        for (const path of [`/alice/${segment}`, `/alice/${segment}/`, `/alice/${segment}/inner`]) {
          const response = await as(path, init);
          expect(response.status, `${init.method} ${path.length}`).toBe(400);
          if (init.method !== 'HEAD') expect(response.headers.get('content-type')).toBe('application/problem+json');
        }
      }
    }
    const listing = await as('/alice/', { headers: { accept: 'text/turtle' } });
    expect(await listing.text()).not.toContain('sss');
    expect(await measurePodUsage(storage, '/alice/')).toBe(usedBefore);
  });

  it('lets an ACL document name a resource of the longest name: its `.acl` does not count', async () => {
    const { as } = await fsPod();
    expect((await as(`/alice/${longest}.acl`, { method: 'PUT', body: '<#a> <#b> <#c>.', headers: { 'content-type': 'text/turtle' } })).status).toBe(201);
    expect((await as(`/alice/${longest}.acl.acl`, { method: 'PUT', body: '<#a> <#b> <#c>.', headers: { 'content-type': 'text/turtle' } })).status).toBe(400);
    expect((await as(`/alice/${tooLong}.acl`, { method: 'PUT', body: '<#a> <#b> <#c>.', headers: { 'content-type': 'text/turtle' } })).status).toBe(400);
  });
});
