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

  it('gives back the objects of an earlier scan for members unchanged since, in any order, and new ones for what changed', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-entries-'));
    roots.push(root);
    await mkdir(join(root, 'c', 'sub'), { recursive: true });
    for (const name of ['a', 'b', 'c', 'd']) await writeFile(join(root, 'c', name), name);
    const blocking = new BlockingCalls();
    const first = await readMembers(root, '/c/', blocking);
    await writeFile(join(root, 'c', 'b'), 'longer now');
    await writeFile(join(root, 'c', 'e'), 'e');
    for (const previous of [first, [...first].reverse()]) {
      const again = await readMembers(root, '/c/', blocking, previous);
      const byPath = (members: typeof first, path: string) => members.find((member) => member.path === path)!;
      for (const path of ['/c/a', '/c/c', '/c/d', '/c/sub/']) expect(byPath(again, path)).toBe(byPath(first, path));
      expect(byPath(again, '/c/b')).not.toBe(byPath(first, '/c/b'));
      expect(byPath(again, '/c/b').size).toBe(10);
      expect(again.map((member) => member.path).sort()).toEqual(['/c/a', '/c/b', '/c/c', '/c/d', '/c/e', '/c/sub/']);
    }
  });
});
