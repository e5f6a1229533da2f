import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { BASE } from '../support/app.ts';
import { podWorld } from '../wac/pods.ts';

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

/**
 * A warm read (caller known, access decided, the bytes held) is answered at once: `fetch` returns the Response
 * itself, which the Node adapter writes without its asynchronous path. A promise here means an await crept in.
 */
describe('a warm GET of a small file', () => {
  it('is answered at once, as the owner and anonymously, and HEAD too, with the same answer as a cold read', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-warm-'));
    roots.push(root);
    const world = await podWorld(['alice'], {}, {}, await FsDriver.open(root));
    // The pod's public/ container is readable by anyone (its default ACL).
    expect((await world.as('alice', '/alice/public/doc.txt', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'hello' })).status).toBe(201);

    for (const [who, method] of [['alice', 'GET'], [null, 'GET'], ['alice', 'HEAD']] as const) {
      const request = () => new Request(`${BASE}/alice/public/doc.txt`, { method, headers: { origin: 'https://app.example', ...(who && { authorization: `Bearer ${world.tokens[who]}` }) } });
      const cold = await world.app.fetch(request());
      const warm = world.app.fetch(request());
      expect(warm, `${method} as ${who ?? 'anyone'}`).toBeInstanceOf(Response);
      const answer = warm as Response;
      expect(answer.status).toBe(200);
      expect([...answer.headers].sort()).toEqual([...cold.headers].sort());
      expect(await answer.text()).toBe(method === 'HEAD' ? '' : 'hello');
    }
  });
});
