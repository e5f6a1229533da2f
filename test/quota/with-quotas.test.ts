import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measurePodUsage, readQuotaRecord, writeQuotaRecord } from '../../src/quota/record.ts';
import { StorageError, type StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';
import { runSvc } from '../support/server.ts';

const put = (body: BodyInit, type = 'text/plain') => ({ method: 'PUT', body, headers: { 'Content-Type': type } });

async function podWithQuota(limit: number, storage: StorageDriver = new MemoryDriver()) {
  await storage.createContainer('/alice/');
  await writeQuotaRecord(storage, '/alice/', { limit, used: 0 });
  const test = makeApp({ public: true }, storage);
  const record = async () => (await readQuotaRecord(storage, '/alice/'))!.record;
  return { ...test, record };
}

function streamOf(chunks: number, chunkSize: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === chunks) return controller.close();
      sent += 1;
      controller.enqueue(new Uint8Array(chunkSize).fill(65));
    },
  });
}

/** A storage whose writes to `lost` land but end in `Unavailable`, as an S3 write whose answer never came. */
function losingAnswersTo(lost: string): StorageDriver {
  const inner = new MemoryDriver();
  return Object.assign(Object.create(inner) as StorageDriver, {
    put: async (...args: Parameters<StorageDriver['put']>) => {
      const result = await inner.put(...args);
      if (args[0] === lost) throw new StorageError('Unavailable', 'no answer within 10 s');
      return result;
    },
  });
}

describe('quota bookkeeping', () => {
  it('measures the pod again after a write that may have landed uncounted (Unavailable): at its next use, or at a clean stop', async () => {
    for (const next of ['write', 'stop'] as const) {
      const { request, storage, record, app, logs } = await podWithQuota(100_000, losingAnswersTo('/alice/lost.txt'));
      expect((await request('/alice/lost.txt', put('x'.repeat(5000)))).status).toBe(503);
      expect(logs).toContain('quota: /alice/ will be measured again: a write ended without an answer from the storage, and may have landed.');
      if (next === 'write') expect((await request('/alice/next.txt', put('y'))).status).toBe(201);
      else await app.close();
      expect((await record()).used, next).toBe(await measurePodUsage(storage, '/alice/'));
      expect((await record()).used, next).toBeGreaterThanOrEqual(5000);
    }
  });

  it('counts writes, refuses what passes the limit with 507 naming used, limit and size, and writes nothing', async () => {
    const { request, storage, record } = await podWithQuota(100);
    expect((await request('/alice/a', put('x'.repeat(60)))).status).toBe(201);
    expect(await record()).toEqual({ limit: 100, used: 60 });

    const refused = await request('/alice/b', put('y'.repeat(50)));
    expect(refused.status).toBe(507);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await refused.json()).toMatchObject({ status: 507, type: 'urn:svc:problem:quota-exceeded', used: 60, limit: 100, requestSize: 50 });
    expect(await storage.head('/alice/b')).toBeNull();

    const post = await request('/alice/', { method: 'POST', body: 'z'.repeat(41), headers: { 'Content-Type': 'text/plain' } });
    expect(post.status).toBe(507);
    expect((await request('/alice/', { method: 'POST', body: 'z'.repeat(40), headers: { 'Content-Type': 'text/plain' } })).status).toBe(201);
    expect((await record()).used).toBe(100);
  });

  it('lets a replacement grow only by what is free, and gives space back on shrink and delete', async () => {
    const { request, record } = await podWithQuota(100);
    await request('/alice/a', put('x'.repeat(90)));
    expect((await request('/alice/a', put('x'.repeat(100)))).status).toBe(204);
    expect((await request('/alice/a', put('x'.repeat(101)))).status).toBe(507);
    expect((await request('/alice/a', put('x'.repeat(30)))).status).toBe(204);
    expect((await record()).used).toBe(30);
    expect((await request('/alice/a', { method: 'DELETE' })).status).toBe(204);
    expect((await record()).used).toBe(0);
  });

  it('cuts a streamed body off as soon as it passes the free space, storing nothing', async () => {
    const { request, storage, record } = await podWithQuota(1000);
    const response = await request('/alice/big.bin', {
      method: 'PUT',
      body: streamOf(100, 100),
      headers: { 'Content-Type': 'application/octet-stream' },
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(507);
    expect(await storage.head('/alice/big.bin')).toBeNull();
    expect((await record()).used).toBe(0);
    const fits = await request('/alice/ok.bin', { method: 'PUT', body: streamOf(10, 100), headers: { 'Content-Type': 'application/octet-stream' }, duplex: 'half' } as RequestInit);
    expect(fits.status).toBe(201);
    expect((await record()).used).toBe(1000);
  });

  it('counts PATCH growth, refuses a PATCH that passes the limit without writing, and gives space back when a PATCH shrinks', async () => {
    const { request, storage, record } = await podWithQuota(400);
    const doc = JSON.stringify({ '@id': '#it', 'http://example.org/p': 'v' });
    expect((await request('/alice/doc', put(doc, 'application/ld+json'))).status).toBe(201);
    const before = (await record()).used;
    const patch = (text: string) => ({ method: 'PATCH', body: text, headers: { 'Content-Type': 'application/sparql-update' } });
    const small = await request('/alice/doc', patch('INSERT DATA { <#it> <http://example.org/q> "w" . }'));
    expect(small.status).toBeLessThan(300);
    expect((await record()).used).toBeGreaterThan(before);
    const grown = await (await request('/alice/doc')).text();
    const usedBefore = (await record()).used;
    const huge = await request('/alice/doc', patch(`INSERT DATA { <#it> <http://example.org/q> "${'w'.repeat(500)}" . }`));
    expect(huge.status).toBe(507);
    expect(huge.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await huge.json()) as { used: number; limit: number; requestSize: number };
    expect(problem).toMatchObject({ type: 'urn:svc:problem:quota-exceeded', used: usedBefore, limit: 400 });
    expect(problem.requestSize).toBeGreaterThan(500);
    expect(await (await request('/alice/doc')).text()).toBe(grown);
    expect((await record()).used).toBe(usedBefore);

    const shrunk = await request('/alice/doc', patch('DELETE DATA { <#it> <http://example.org/q> "w" . }'));
    expect(shrunk.status).toBeLessThan(300);
    expect((await record()).used).toBeLessThan(usedBefore);
    expect((await record()).used).toBe(await measurePodUsage(storage, '/alice/'));
  });

  it('treats limit 0 as unlimited but still counts', async () => {
    const { request, record } = await podWithQuota(0);
    expect((await request('/alice/a', put('x'.repeat(5000)))).status).toBe(201);
    expect(await record()).toEqual({ limit: 0, used: 5000 });
  });

  it('never serves or counts .quota.json, and leaves pods without a record alone', async () => {
    const { request, storage, record } = await podWithQuota(100);
    expect((await request('/alice/.quota.json')).status).toBe(404);
    expect((await request('/bob/a', put('x'.repeat(500)))).status).toBe(201);
    expect(await storage.head('/bob/.quota.json')).toBeNull();
    expect((await record()).used).toBe(0);
  });

  it('lets writes through uncounted, logging once, while .quota.json is broken by hand; a rewritten record counts again', async () => {
    const { request, storage, logs } = await podWithQuota(100);
    await storage.put('/alice/.quota.json', '{"limit": 100, "used": ', { contentType: 'application/json' });
    expect((await request('/alice/a', put('x'.repeat(500)))).status).toBe(201);
    expect((await request('/alice/a', { method: 'DELETE' })).status).toBe(204);
    expect((await request('/alice/b', put('x'.repeat(10)))).status).toBe(201);
    expect(logs.filter((line) => line.includes('/alice/.quota.json is not valid JSON'))).toHaveLength(1);
    await writeQuotaRecord(storage, '/alice/', { limit: 100, used: await measurePodUsage(storage, '/alice/') });
    expect((await request('/alice/c', put('x'.repeat(91)))).status).toBe(507);
    expect((await request('/alice/c', put('x'.repeat(90)))).status).toBe(201);
    expect((await readQuotaRecord(storage, '/alice/'))!.record).toEqual({ limit: 100, used: 100 });
  });

  it('picks up a record changed behind its back (svc quota set while running)', async () => {
    const { request, storage } = await podWithQuota(100);
    await request('/alice/a', put('x'.repeat(50)));
    await writeQuotaRecord(storage, '/alice/', { limit: 60, used: 50 });
    expect((await request('/alice/b', put('x'.repeat(20)))).status).toBe(507);
    expect((await request('/alice/b', put('x'.repeat(10)))).status).toBe(201);
  });
});

/** Random writes (create, replace, grow, shrink, POST) and deletes over a small set of names, all at once. */
async function mixedWrites(request: (path: string, init?: RequestInit) => Promise<Response>, count: number, seed: number) {
  let state = seed;
  // mulberry32: a seeded generator, so a failure can be replayed.
  const random = (n: number) => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return (((t ^ (t >>> 14)) >>> 0) % n);
  };
  const operations = Array.from({ length: count }, () => {
    const path = `/alice/d${random(4)}/f${random(25)}`;
    // RDF documents that PATCH creates, grows and shrinks.
    const graph = `/alice/d${random(4)}/g${random(5)}`;
    const kind = random(12);
    if (kind < 3) return () => request(path, { method: 'DELETE' });
    if (kind < 4) return () => request(`/alice/d${random(4)}/`, { method: 'POST', body: 'p'.repeat(random(300)), headers: { 'Content-Type': 'text/plain' } });
    if (kind < 6) {
      const operation = kind === 4 ? 'INSERT' : 'DELETE';
      const body = `${operation} DATA { <#it> <http://example.org/p${random(3)}> "${'v'.repeat(random(200))}" . }`;
      return () => request(graph, { method: 'PATCH', body, headers: { 'Content-Type': 'application/sparql-update' } });
    }
    if (kind < 7) return () => request(graph, { method: 'DELETE' });
    return () => request(path, put('w'.repeat(random(600))));
  });
  return Promise.all(operations.map((operation) => operation()));
}

describe('quota records after an unclean stop', () => {
  it('are recounted before the first request when the storage reports a crash, and left alone otherwise', async () => {
    for (const uncleanStop of [false, true]) {
      const storage = new MemoryDriver();
      await storage.put('/alice/a', 'x'.repeat(40), { contentType: 'text/plain' });
      await storage.put('/bob/b', 'y'.repeat(7), { contentType: 'text/plain' });
      // The records missed writes that landed just before the crash.
      await writeQuotaRecord(storage, '/alice/', { limit: 100, used: 10 });
      await writeQuotaRecord(storage, '/bob/', { limit: 0, used: 0 });
      const { app, request, logs } = makeApp({ public: true, quiet: true }, Object.assign(storage, { uncleanStop }));
      await app.init();
      expect((await request('/alice/a')).status).toBe(200);
      expect((await readQuotaRecord(storage, '/alice/'))!.record).toEqual({ limit: 100, used: uncleanStop ? 40 : 10 });
      expect((await readQuotaRecord(storage, '/bob/'))!.record).toEqual({ limit: 0, used: uncleanStop ? 7 : 0 });
      expect(logs.some((line) => line.includes('recounted'))).toBe(uncleanStop);
    }
  });
});

describe('quota accounting under concurrency', () => {
  it('stays exact after 1,000 concurrent mixed writes and deletes (memory driver), with no 5xx', async () => {
    const { request, storage, record } = await podWithQuota(20_000);
    const responses = await mixedWrites(request, 1000, 7);
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status >= 500 && status !== 507)).toEqual([]);
    expect(statuses).toEqual(expect.arrayContaining([201, 204, 404, 507]));
    const { used, limit } = await record();
    expect(used).toBe(await measurePodUsage(storage, '/alice/'));
    expect(used).toBeLessThanOrEqual(limit);
  });

  it('stays exact with the fs driver: the real svc quota reconcile finds nothing to correct', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-quota-'));
    try {
      const storage = await FsDriver.open(root);
      const { request, record } = await podWithQuota(15_000, storage);
      const responses = await mixedWrites(request, 1000, 11);
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status >= 500 && status !== 507)).toEqual([]);
      expect(statuses).toEqual(expect.arrayContaining([201, 204, 507]));
      const { used } = await record();
      expect(used).toBe(await measurePodUsage(storage, '/alice/'));
      const reconcile = await runSvc(['quota', 'reconcile', 'alice', '-r', root]);
      expect(reconcile.code).toBe(0);
      expect(reconcile.stdout).toContain(`was ${used} bytes, now ${used} bytes`);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('a record rewritten while a write is in flight', () => {
  it('keeps the new limit and adds the write to the used it says, instead of writing over it', async () => {
    const inner = new MemoryDriver();
    let rewriteDuringNextWrite = false;
    // Stands for `svc quota set` rewriting .quota.json on disk while a request is being served.
    const storage: StorageDriver = Object.assign(Object.create(inner) as StorageDriver, {
      put: async (...args: Parameters<StorageDriver['put']>) => {
        if (rewriteDuringNextWrite && !args[0].endsWith('.quota.json')) {
          rewriteDuringNextWrite = false;
          await writeQuotaRecord(inner, '/alice/', { limit: 5000, used: 100 });
        }
        return inner.put(...args);
      },
    });
    const { request, record } = await podWithQuota(1000, storage);
    expect((await request('/alice/a', put('x'.repeat(10)))).status).toBe(201);
    expect(await record()).toEqual({ limit: 1000, used: 10 });
    rewriteDuringNextWrite = true;
    expect((await request('/alice/b', put('y'.repeat(20)))).status).toBe(201);
    await expect.poll(record).toEqual({ limit: 5000, used: 120 });
  });
});
