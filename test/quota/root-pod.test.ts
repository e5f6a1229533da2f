/**
 * The single-user pod at `/` (`--single-user --single-user-name ""`, which `--activitypub` needs) has a quota
 * like any pod, and every writer in the app counts against it: LDP, remoteStorage, the document database.
 * Git, the ActivityPub inbox and the Nostr relay run against real processes in root-pod-processes.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentStore } from '../../src/docdb/store.ts';
import { ROOT_POD_RECORD } from '../../src/pods/single-user.ts';
import { CONTAINER_BYTES, measurePodUsage, quotaPathOf, readQuotaRecord, reconcileAllPods, writeQuotaRecord } from '../../src/quota/record.ts';
import { quotaScope } from '../../src/quota/scope.ts';
import { openMongoDocumentStore } from '../../runtimes/node/docdb.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';
import { startTestDatabase, type TestDatabase } from '../support/jongodb.ts';

const LIMIT = 64 * 1024;
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

async function rootPod(flags: Record<string, unknown> = {}, storage = new MemoryDriver()) {
  const test = makeApp({ singleUser: true, singleUserName: '', defaultQuota: '64KB', ...flags }, storage);
  const pod = await test.app.singleUserPod!();
  const record = async () => (await readQuotaRecord(storage, '/'))!.record;
  return { ...test, token: pod.token!, record };
}

describe('the quota of the pod at /', () => {
  it('is written with the pod: --default-quota, and the skeleton as used', async () => {
    const { storage, record } = await rootPod();
    const { limit, used } = await record();
    expect(limit).toBe(LIMIT);
    expect(used).toBeGreaterThan(0);
    expect(used).toBe(await measurePodUsage(storage, '/'));
    // The server's own state is not the pod's.
    expect(await storage.head('/.server/')).not.toBeNull();
  });

  it('is given to a pod at / made before it had one (an older data directory), at the next start', async () => {
    const storage = new MemoryDriver();
    const first = await rootPod({ defaultQuota: '0' }, storage);
    expect((await first.request('/notes/big.txt', { method: 'PUT', body: 'x'.repeat(70 * 1024), headers: { ...bearer(first.token), 'Content-Type': 'text/plain' } })).status).toBe(201);
    await storage.delete(quotaPathOf('/'));
    expect(await storage.head(ROOT_POD_RECORD)).not.toBeNull();

    const { logs, request, record } = await rootPod({}, storage);
    const { limit, used } = await record();
    expect(limit).toBe(LIMIT);
    expect(used).toBe(await measurePodUsage(storage, '/'));
    expect(logs.join('\n')).toMatch(/the pod at \/ had no quota record; it now has one: \d+ bytes used of 65536 bytes .*over the limit.*svc quota set \/ <size>/);
    // Over its limit: writes that grow it are refused, those that free space pass.
    const grow = await request('/notes/more.txt', { method: 'PUT', body: 'y', headers: { ...bearer(first.token), 'Content-Type': 'text/plain' } });
    expect(grow.status).toBe(507);
    expect((await request('/notes/big.txt', { method: 'DELETE', headers: bearer(first.token) })).status).toBe(204);
    expect((await record()).used).toBe(used - 70 * 1024);
  });

  it('refuses LDP writes past the limit with 507 and counts what it stores', async () => {
    const { request, record, token } = await rootPod();
    const free = LIMIT - (await record()).used;
    const put = (path: string, size: number) => request(path, { method: 'PUT', body: 'x'.repeat(size), headers: { ...bearer(token), 'Content-Type': 'text/plain' } });
    const refused = await put('/public/too-big.txt', free + 1);
    expect(refused.status).toBe(507);
    expect(await refused.json()).toMatchObject({ type: 'urn:svc:problem:quota-exceeded', limit: LIMIT });
    expect((await put('/public/fits.txt', free)).status).toBe(201);
    expect((await record()).used).toBe(LIMIT);
    expect((await request('/public/', { method: 'POST', body: 'z', headers: { ...bearer(token), 'Content-Type': 'text/plain' } })).status).toBe(507);
  });

  it('refuses remoteStorage writes past the limit with 507', async () => {
    const { request, record, token, storage } = await rootPod();
    const put = (path: string, size: number) => request(`/storage/me/${path}`, { method: 'PUT', body: 'x'.repeat(size), headers: { ...bearer(token), 'Content-Type': 'text/plain' } });
    // The document's own folder is a container of the pod: it counts too.
    const free = LIMIT - (await record()).used - 2 * CONTAINER_BYTES;
    expect((await put('notes/too-big.txt', free + 1)).status).toBe(507);
    expect(await storage.head('/remotestorage/notes/too-big.txt')).toBeNull();
    expect((await put('notes/fits.txt', free)).status).toBe(201);
    expect((await record()).used).toBe(LIMIT);
  });
});

describe('the quota of the pod at / and the document database (jongodb)', () => {
  let database: TestDatabase;
  let store: DocumentStore;
  beforeAll(async () => {
    database = await startTestDatabase();
    store = await openMongoDocumentStore(database.url, database.database);
  }, 30_000);
  afterAll(async () => {
    await store?.close();
    await database?.stop();
  });

  it('counts documents under /db/ against the pod at / and refuses them past the limit with 507', async () => {
    const storage = new MemoryDriver();
    const test = makeApp({ singleUser: true, singleUserName: '', defaultQuota: '64KB', docdb: true }, storage, { documentStore: store });
    const { token } = await test.app.singleUserPod!();
    const record = async () => (await readQuotaRecord(storage, '/'))!.record;
    const before = await record();
    const document = (size: number) => JSON.stringify({ '@id': '#it', 'http://schema.org/text': 'd'.repeat(size) });
    const put = (path: string, body: string) => test.request(`/db/${path}`, { method: 'PUT', body, headers: { ...bearer(token!), 'Content-Type': 'application/ld+json' } });
    const fits = document(10_000);
    expect((await put('notes/one', fits)).status).toBe(201);
    expect(await record()).toEqual({ limit: LIMIT, used: before.used + fits.length, documents: fits.length });
    const free = LIMIT - before.used - fits.length;
    const refused = await put('notes/two', document(free));
    expect(refused.status).toBe(507);
    expect((await test.request('/db/notes/two', { headers: bearer(token!) })).status).toBe(404);
    expect((await test.request('/db/notes/one', { method: 'DELETE', headers: bearer(token!) })).status).toBe(204);
    expect(await record()).toEqual({ limit: LIMIT, used: before.used });
    // The record keeps the documents' bytes, which a recount of the files (after a crash) cannot see.
    expect((await put('notes/three', fits)).status).toBe(201);
    const counted = await record();
    await writeQuotaRecord(storage, '/', { ...counted, used: 1 });
    await reconcileAllPods(storage, quotaScope({ singlePod: '/' }), () => undefined);
    expect(await record()).toEqual(counted);
  });
});
