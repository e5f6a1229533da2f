import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { makeApp } from '../support/app.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the fs driver caches, seen through the handlers', () => {
  it('never answer with an older version than the last completed write, even with reads racing the writes', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-fresh-'));
    try {
      const { request } = makeApp({ public: true }, await FsDriver.open(root));
      const put = (path: string, body: string, type: string) => request(path, { method: 'PUT', body, headers: { 'Content-Type': type } });
      const stale: string[] = [];
      for (let i = 0; i < 60; i++) {
        const type = i % 2 ? 'text/markdown' : 'text/plain';
        const writes = [put('/race/note', `v${i}`, type), put(`/race/m${i}`, 'm', 'text/plain')];
        // Reads that start while the writes are under way, one event-loop turn apart, so some begin before
        // the writes reach the disk and end after.
        const reads: Promise<unknown>[] = [];
        for (let turn = 0; turn < 8; turn++) {
          await nextTurn();
          reads.push(request('/race/note').then((r) => r.arrayBuffer()), request('/race/').then((r) => r.arrayBuffer()));
        }
        await Promise.all([...writes, ...reads]);
        const read = await request('/race/note');
        const body = await read.text();
        if (body !== `v${i}` || read.headers.get('content-type') !== type) {
          stale.push(`after writing v${i} as ${type}: ${body} as ${read.headers.get('content-type')}`);
        }
        if (!(await (await request('/race/')).text()).includes(`/race/m${i}"`)) stale.push(`the listing after write ${i} lacks m${i}`);
      }
      expect(stale).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
