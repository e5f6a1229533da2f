import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { CHECKPOINT_MS, QuotaLedgers } from '../../src/quota/ledger.ts';
import { measurePodUsage, readQuotaRecord, writeQuotaRecord, type QuotaRecord } from '../../src/quota/record.ts';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { makeApp } from '../support/app.ts';

const roots: string[] = [];
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const put = (body: string) => ({ method: 'PUT', body, headers: { 'Content-Type': 'text/plain' } });

/** A server's view of a fresh data directory (opened with recovery, as `svc start` does) with one pod of `limit` bytes. */
async function serverWithPod(limit: number) {
  const root = await mkdtemp(join(tmpdir(), 'svc-ledger-'));
  roots.push(root);
  const storage = await FsDriver.open(root, { recover: true });
  await storage.createContainer('/alice/');
  await writeQuotaRecord(storage, '/alice/', { limit, used: 0 });
  const test = makeApp({ public: true }, storage);
  const onDisk = async () => JSON.parse(await readFile(join(root, 'alice', '.quota.json'), 'utf8')) as QuotaRecord;
  return { ...test, root, onDisk };
}

/** Writes that grow, shrink, replace and delete, so the count moves both ways. */
async function someWrites(request: (path: string, init?: RequestInit) => Promise<Response>) {
  for (let i = 0; i < 20; i++) expect((await request(`/alice/f${i % 7}`, put('x'.repeat(10 + i * 13)))).status).toBeLessThan(300);
  expect((await request('/alice/f3', { method: 'DELETE' })).status).toBe(204);
}

describe('quota counts saved by checkpoint (storage that recounts after an unclean stop)', () => {
  it('limits exactly from memory, and a clean stop saves the exact count', async () => {
    const { app, request, storage, onDisk } = await serverWithPod(5000);
    await someWrites(request);
    const used = await measurePodUsage(storage, '/alice/');
    // The limit is checked against the count in memory, not against the record on disk.
    expect((await request('/alice/big', put('y'.repeat(5000 - used + 1)))).status).toBe(507);
    expect((await request('/alice/big', put('y'.repeat(5000 - used)))).status).toBe(201);
    await app.close();
    expect(await onDisk()).toEqual({ limit: 5000, used: 5000 });
  });

  it('is exact again after a crash: the next start finds the running marker and recounts', async () => {
    const { request, root, storage, onDisk } = await serverWithPod(0);
    await someWrites(request);
    const used = await measurePodUsage(storage, '/alice/');
    // No close: the process died with counts not yet saved.
    expect((await onDisk()).used).not.toBe(used);
    const restarted = await FsDriver.open(root, { recover: true });
    expect(restarted.uncleanStop).toBe(true);
    const { app } = makeApp({ public: true }, restarted);
    await app.init();
    expect(await onDisk()).toEqual({ limit: 0, used });
    await app.close();
  });

  it('keeps unsaved counts when `svc quota set` rewrites the limit, and takes a reconciled used as it is', async () => {
    const { app, request, storage, onDisk } = await serverWithPod(0);
    await someWrites(request);
    const used = await measurePodUsage(storage, '/alice/');
    const stale = (await onDisk()).used;
    // `svc quota set` keeps the used it read (stale here) and sets a limit.
    await writeQuotaRecord(storage, '/alice/', { limit: used + 10, used: stale });
    expect((await request('/alice/n', put('z'.repeat(11)))).status).toBe(507);
    expect((await request('/alice/n', put('z'.repeat(10)))).status).toBe(201);
    // `svc quota reconcile`, a process of its own started later (a file's time may lag the clock by a tick of
    // ~10 ms), writes what it measured, which
    // every committed write is part of.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeQuotaRecord(storage, '/alice/', { limit: used + 10, used: used + 10 });
    expect((await request('/alice/n', { method: 'DELETE' })).status).toBe(204);
    await app.close();
    expect(await onDisk()).toEqual({ limit: used + 10, used });
    expect(used).toBe(await measurePodUsage(storage, '/alice/'));
  });

  it('takes a used reconciled while writes wait for their checkpoint as it is, not with those writes on top again', async () => {
    for (const write of [put('w'.repeat(10_000)), { method: 'DELETE' }]) {
      const { app, request, storage, onDisk } = await serverWithPod(0);
      expect((await request('/alice/w', put('w'))).status).toBe(201);
      await vi.waitFor(async () => expect((await onDisk()).used).toBe(1), { timeout: CHECKPOINT_MS * 5 });
      // The next write's change waits for its checkpoint; `svc quota reconcile` measures the disk meanwhile.
      expect((await request('/alice/w', write)).status).toBeLessThan(300);
      const measured = await measurePodUsage(storage, '/alice/');
      // The command runs in a process of its own, later than a tick of the clock file times are taken from.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const stored = await readQuotaRecord(storage, '/alice/');
      expect(stored!.record.used).not.toBe(measured);
      await writeQuotaRecord(storage, '/alice/', { limit: 0, used: measured }, stored!.etag);
      await app.close();
      expect(await onDisk()).toEqual({ limit: 0, used: measured });
    }
  });
});

describe('QuotaLedgers.flush', () => {
  it('resolves only once a checkpoint already saving has finished, so a clean stop never cuts one off', async () => {
    const inner = new MemoryDriver();
    await writeQuotaRecord(inner, '/alice/', { limit: 0, used: 0 });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The record's save waits at the gate, as a slow disk would make it.
    const storage: StorageDriver = Object.assign(Object.create(inner) as StorageDriver, {
      put: async (...args: Parameters<StorageDriver['put']>) => {
        if (args[0].endsWith('.quota.json')) await gate;
        return inner.put(...args);
      },
    });
    const ledgers = new QuotaLedgers(storage, { log: () => undefined, checkpoint: true, measure: (podRoot) => measurePodUsage(storage, podRoot) });
    const ledger = (await ledgers.load('/alice/'))!;
    vi.useFakeTimers();
    try {
      await ledgers.commit('/alice/', ledger, 10);
      vi.advanceTimersByTime(CHECKPOINT_MS);
    } finally {
      vi.useRealTimers();
    }
    let flushed = false;
    const flush = ledgers.flush().then(() => (flushed = true));
    for (let tick = 0; tick < 20; tick++) await Promise.resolve();
    expect(flushed).toBe(false);
    release();
    await flush;
    expect((await readQuotaRecord(inner, '/alice/'))!.record).toEqual({ limit: 0, used: 10 });
  });
});
