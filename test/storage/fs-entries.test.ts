import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BlockingCalls } from '../../storage-drivers/fs-blocking.ts';
import { readMembers, readSmallSync } from '../../storage-drivers/fs-entries.ts';

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

  it('gives a new object for a name that became a container, or a file again', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-entries-'));
    roots.push(root);
    await mkdir(join(root, 'c'));
    await writeFile(join(root, 'c', 'x'), 'x');
    const blocking = new BlockingCalls();
    const file = await readMembers(root, '/c/', blocking);
    await rm(join(root, 'c', 'x'));
    await mkdir(join(root, 'c', 'x'));
    const directory = await readMembers(root, '/c/', blocking, file);
    expect(directory.map((member) => [member.path, member.isContainer])).toEqual([['/c/x/', true]]);
    await rm(join(root, 'c', 'x'), { recursive: true });
    await writeFile(join(root, 'c', 'x'), 'x');
    const again = await readMembers(root, '/c/', blocking, directory);
    expect(again.map((member) => [member.path, member.isContainer])).toEqual([['/c/x', false]]);
    expect(again[0]).not.toBe(file[0]);
  });
});

describe('reading a small file in blocking calls', () => {
  it('gives its bytes and stats, null where there is no file, and "large" above the limit', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-entries-'));
    roots.push(root);
    await writeFile(join(root, 'small'), 'hello');
    await mkdir(join(root, 'dir'));
    const read = readSmallSync(join(root, 'small'), 5);
    expect(read).not.toBeNull();
    expect(typeof read === 'object' && new TextDecoder().decode(read!.bytes)).toBe('hello');
    expect(typeof read === 'object' && read!.stats.size).toBe(5n);
    expect(readSmallSync(join(root, 'small'), 4)).toBe('large');
    expect(readSmallSync(join(root, 'missing'), 4)).toBeNull();
    expect(readSmallSync(join(root, 'small', 'below'), 4)).toBeNull();
    expect(readSmallSync(join(root, 'dir'), 4)).toBeNull();
  });

  it('answers null at once for a FIFO someone put at a resource path, without waiting for a writer', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-entries-'));
    roots.push(root);
    execFileSync('mkfifo', [join(root, 'fifo')]);
    expect(readSmallSync(join(root, 'fifo'), 4)).toBeNull();
  });
});
