/**
 * Everything a pod makes the server store counts against its quota, or has a small fixed cap: containers
 * count CONTAINER_BYTES each, and the content type kept beside a body (the fs driver's sidecar) is capped.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CONTAINER_BYTES, measurePodUsage, readQuotaRecord, writeQuotaRecord } from '../../src/quota/record.ts';
import { MAX_CONTENT_TYPE_LENGTH } from '../../src/storage/media-types.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

async function fsStorage(): Promise<{ storage: FsDriver; root: string }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-uncounted-'));
  roots.push(root);
  return { storage: await FsDriver.open(root), root };
}

async function podWithQuota(limit: number, storage: StorageDriver = new MemoryDriver()) {
  await storage.createContainer('/alice/');
  await writeQuotaRecord(storage, '/alice/', { limit, used: 0 });
  const test = makeApp({ public: true, conneg: true }, storage);
  const used = async () => (await readQuotaRecord(storage, '/alice/'))!.record.used;
  return { ...test, used };
}

const text = (body: string, type = 'text/plain') => ({ method: 'PUT', body, headers: { 'Content-Type': type } });

describe('containers count against the quota', () => {
  it('counts each container a write makes, by PUT, POST or on the way to a resource, and gives it back on DELETE', async () => {
    const { request, used } = await podWithQuota(0);
    expect((await request('/alice/folder/', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(201);
    expect(await used()).toBe(CONTAINER_BYTES);
    expect((await request('/alice/a/b/c.txt', text('hello'))).status).toBe(201);
    expect(await used()).toBe(3 * CONTAINER_BYTES + 5);
    const posted = await request('/alice/folder/', { method: 'POST', headers: { 'Content-Type': 'text/turtle', Link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"', Slug: 'sub' } });
    expect(posted.status).toBe(201);
    expect(await used()).toBe(4 * CONTAINER_BYTES + 5);
    expect((await request('/alice/folder/sub/', { method: 'DELETE' })).status).toBe(204);
    expect((await request('/alice/folder/', { method: 'DELETE' })).status).toBe(204);
    expect(await used()).toBe(2 * CONTAINER_BYTES + 5);
  });

  it('refuses a container that does not fit with 507, and makes nothing', async () => {
    const { request, storage, used } = await podWithQuota(2 * CONTAINER_BYTES);
    expect((await request('/alice/one/', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(201);
    expect((await request('/alice/two/three/', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(507);
    expect(await storage.head('/alice/two/')).toBeNull();
    expect((await request('/alice/two/x.txt', text(''))).status).toBe(201);
    expect(await used()).toBe(2 * CONTAINER_BYTES);
    expect((await request('/alice/four/', { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(507);
  });

  it('does not let 100 folders grow the pod unseen (fs driver), and the count equals a recount', async () => {
    const { storage } = await fsStorage();
    const { request, used } = await podWithQuota(0, storage);
    for (let i = 0; i < 100; i++) expect((await request(`/alice/folders/f${i}/`, { method: 'PUT', headers: { 'Content-Type': 'text/turtle' } })).status).toBe(201);
    expect(await used()).toBe(101 * CONTAINER_BYTES);
    expect(await measurePodUsage(storage, '/alice/')).toBe(await used());
  });
});

describe('the stored content type is capped', () => {
  const longType = (length: number) => 'application/x-' + 'a'.repeat(length - 'application/x-'.length);

  it(`refuses a Content-Type longer than ${MAX_CONTENT_TYPE_LENGTH} characters with 400 and stores nothing (fs driver: no sidecar)`, async () => {
    const { storage, root } = await fsStorage();
    const { request } = await podWithQuota(0, storage);
    const refused = await request('/alice/empty', text('', longType(12 * 1024)));
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await refused.json()).toMatchObject({ type: 'urn:svc:problem:content-type-too-long' });
    expect((await request('/alice/', { method: 'POST', body: '', headers: { 'Content-Type': longType(MAX_CONTENT_TYPE_LENGTH + 1) } })).status).toBe(400);
    expect(await readdir(join(root, 'alice'))).toEqual(['.quota.json']);
  });

  it(`stores a Content-Type of ${MAX_CONTENT_TYPE_LENGTH} characters, whose sidecar stays small`, async () => {
    const { storage, root } = await fsStorage();
    const { request } = await podWithQuota(0, storage);
    const type = longType(MAX_CONTENT_TYPE_LENGTH);
    expect((await request('/alice/typed', text('', type))).status).toBe(201);
    expect((await request('/alice/typed')).headers.get('content-type')).toBe(type);
    // Replacing the type keeps the old one for the old body (crash safety): still bounded by twice the cap.
    expect((await request('/alice/typed', text('', longType(MAX_CONTENT_TYPE_LENGTH - 1)))).status).toBe(204);
    expect((await stat(join(root, 'alice', 'typed.svc-meta'))).size).toBeLessThan(2 * MAX_CONTENT_TYPE_LENGTH + 200);
  });

  it('refuses an over-long Content-Type on remoteStorage writes too', async () => {
    const test = makeApp({ singleUser: true, singleUserName: '' });
    const { token } = await test.app.singleUserPod!();
    const refused = await test.request('/storage/me/notes/x', { method: 'PUT', body: '', headers: { Authorization: `Bearer ${token}`, 'Content-Type': longType(MAX_CONTENT_TYPE_LENGTH + 1) } });
    expect(refused.status).toBe(400);
    expect(await test.storage.head('/remotestorage/notes/x')).toBeNull();
  });
});
