import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockingCalls } from '../../storage-drivers/fs-blocking.ts';
import { readMembers } from '../../storage-drivers/fs-entries.ts';

const roots: string[] = [];
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('reading a container from the disk', () => {
  it('finds the same members with blocking calls and through the thread pool, across slices, without reserved names or symlinks', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-entries-'));
    roots.push(root);
    await mkdir(join(root, 'c', 'sub'), { recursive: true });
    const names = Array.from({ length: 600 }, (_, index) => `m${String(index).padStart(4, '0')}`);
    for (const name of names) await writeFile(join(root, 'c', name), name);
    await writeFile(join(root, 'c', 'm0000.svc-meta'), '{"contentType":"text/plain"}');
    await symlink(join(root, 'c', 'm0001'), join(root, 'c', 'link'));
    const expected = [...names.map((name) => `/c/${name}`), '/c/sub/'].sort();
    for (const blocking of [new BlockingCalls(), new BlockingCalls({ enabled: false })]) {
      const members = await readMembers(root, '/c/', blocking);
      expect(members.map((member) => member.path).sort()).toEqual(expected);
      expect(members.find((member) => member.path === '/c/m0599')!.size).toBe(5);
    }
  });
});
