import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { runStorageContract } from './contract.ts';

const roots: string[] = [];
async function freshDriver(): Promise<FsDriver> {
  const root = await mkdtemp(join(tmpdir(), 'svc-fs-'));
  roots.push(root);
  return FsDriver.open(root);
}
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

runStorageContract('fs', freshDriver);

describe('fs driver layout', () => {
  it('stores plain files at their paths and hides the content-type sidecar', async () => {
    const driver = await freshDriver();
    await driver.put('/a/note', 'hello', { contentType: 'text/plain' });
    await driver.put('/a/data.ttl', '<a> <b> <c>.', { contentType: 'text/turtle' });
    expect(await readFile(join(driver.root, 'a', 'note'), 'utf8')).toBe('hello');
    const onDisk = (await readdir(join(driver.root, 'a'))).sort();
    expect(onDisk).toEqual(['data.ttl', 'note', 'note.svc-meta']);
    const listed = [];
    for await (const meta of driver.list('/a/')) listed.push(meta.path);
    expect(listed.sort()).toEqual(['/a/data.ttl', '/a/note']);
  });

  it('removes the sidecar with the resource and leaves no temp files', async () => {
    const driver = await freshDriver();
    await driver.put('/b/note', 'x', { contentType: 'text/plain' });
    await driver.put('/b/note', 'y', { contentType: 'text/plain', ifNoneMatch: '*' });
    await driver.delete('/b/note');
    expect(await readdir(join(driver.root, 'b'))).toEqual([]);
  });
});
