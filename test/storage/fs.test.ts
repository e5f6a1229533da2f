import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import type { FsOptions } from '../../storage-drivers/fs-options.ts';
import { runStorageContract } from './contract.ts';

const roots: string[] = [];
async function freshDriver(options: Pick<FsOptions, 'blockingCalls' | 'spares'> = {}): Promise<FsDriver> {
  const root = await mkdtemp(join(tmpdir(), 'svc-fs-'));
  roots.push(root);
  return FsDriver.open(root, options);
}
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

runStorageContract('fs', () => freshDriver());
// Small writes use blocking calls while the disk is quick; the asynchronous path must keep the same contract.
runStorageContract('fs (asynchronous calls only)', () => freshDriver({ blockingCalls: false }));
// Old versions written into by the very next small write: the contract holds with every overwrite reusing a file.
runStorageContract('fs (spares reused at once)', () => freshDriver({ spares: { minAgeMs: 0 } }));

describe('fs driver spares (old versions as the next temp files)', () => {
  const spares = async (driver: FsDriver) => (await readdir(driver.root)).filter((name) => name.startsWith('.svc-tmp-spare-'));
  const body = (stored: Awaited<ReturnType<FsDriver['get']>>) => new Response(stored!.body).text();

  it('writes a later small write into the file of a replaced version, with a new ETag and nothing of the old body', async () => {
    const driver = await freshDriver({ spares: { minAgeMs: 0 } });
    await driver.put('/c/doc', JSON.stringify({ v: 'first, the longest body of the three' }), { contentType: 'application/ld+json' });
    const first = await stat(join(driver.root, 'c', 'doc'));
    const firstMeta = (await driver.head('/c/doc'))!;
    await driver.put('/c/doc', JSON.stringify({ v: 'second' }), { contentType: 'application/ld+json' });
    expect(await spares(driver)).toHaveLength(1);
    await driver.put('/c/doc', JSON.stringify({ v: 'third' }), { contentType: 'application/ld+json' });
    const third = await stat(join(driver.root, 'c', 'doc'));
    expect(third.ino).toBe(first.ino);
    expect(await readFile(join(driver.root, 'c', 'doc'), 'utf8')).toBe('{"v":"third"}');
    const reopened = await FsDriver.open(driver.root);
    const stored = await reopened.get('/c/doc');
    expect(await body(stored)).toBe('{"v":"third"}');
    expect(stored!.meta.etag).not.toBe(firstMeta.etag);
  });

  it('never writes into a spare that has another name (a backup made of hard links)', async () => {
    const driver = await freshDriver({ spares: { minAgeMs: 0 } });
    await driver.put('/c/doc', 'version one', { contentType: 'text/plain' });
    await link(join(driver.root, 'c', 'doc'), join(driver.root, 'backup-of-doc'));
    await driver.put('/c/doc', 'version two', { contentType: 'text/plain' });
    expect(await spares(driver), 'a file with two names is kept by the other').toEqual([]);
    await driver.put('/c/doc', 'version three', { contentType: 'text/plain' });
    // Linked once it is a spare: a backup of the whole data directory, temp names and all.
    const [spare] = await spares(driver);
    await link(join(driver.root, spare!), join(driver.root, 'backup-of-spare'));
    await driver.put('/c/doc', 'version four', { contentType: 'text/plain' });
    expect(await readFile(join(driver.root, 'backup-of-doc'), 'utf8')).toBe('version one');
    expect(await readFile(join(driver.root, 'backup-of-spare'), 'utf8')).toBe('version two');
    expect(await readFile(join(driver.root, 'c', 'doc'), 'utf8')).toBe('version four');
  });

  it('keeps no spare of a large old version, and none before it is old enough', async () => {
    const driver = await freshDriver({ spares: { minAgeMs: 60_000 } });
    await driver.put('/c/big', 'x'.repeat(70 * 1024), { contentType: 'text/plain' });
    await driver.put('/c/big', 'small now', { contentType: 'text/plain' });
    expect(await spares(driver)).toEqual([]);
    const before = await stat(join(driver.root, 'c', 'big'));
    await driver.put('/c/big', 'small again', { contentType: 'text/plain' });
    expect(await spares(driver)).toHaveLength(1);
    expect((await stat(join(driver.root, 'c', 'big'))).ino).not.toBe(before.ino);
  });

  it('reads a range of a small file from one version', async () => {
    const driver = await freshDriver({ spares: { minAgeMs: 0 } });
    await driver.put('/c/doc', 'abcdefghij', { contentType: 'text/plain' });
    await driver.put('/c/doc', '0123456789', { contentType: 'text/plain' });
    const reopened = await FsDriver.open(driver.root);
    const part = await reopened.get('/c/doc', { range: { start: 2, end: 4 } });
    expect(part!.range).toEqual({ start: 2, end: 4 });
    expect(await body(part)).toBe('234');
  });

  it('removes its spares on a clean stop; commands beside the server keep none', async () => {
    const server = await FsDriver.open((await freshDriver()).root, { recover: true });
    await server.put('/c/doc', 'one', { contentType: 'text/plain' });
    await server.put('/c/doc', 'two', { contentType: 'text/plain' });
    expect(await spares(server)).toHaveLength(1);
    await server.close();
    expect(await spares(server)).toEqual([]);
    const command = await FsDriver.open(server.root);
    await command.put('/c/doc', 'three', { contentType: 'text/plain' });
    expect(await spares(command)).toEqual([]);
  });
});

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

describe('fs driver sidecars that only name a type', () => {
  it('are hard links to one shared file per type, taking no block of their own', async () => {
    const driver = await freshDriver();
    for (const name of ['m1.json', 'm2.json', 'm3.json']) await driver.put(`/c/${name}`, '{}', { contentType: 'application/ld+json' });
    await driver.put('/c/t', '<a> <b> <c>.', { contentType: 'text/turtle' });
    const inode = async (name: string) => (await stat(join(driver.root, 'c', name))).ino;
    const shared = await inode('m1.json.svc-meta');
    expect(await inode('m2.json.svc-meta')).toBe(shared);
    expect(await inode('m3.json.svc-meta')).toBe(shared);
    expect(await inode('t.svc-meta')).not.toBe(shared);
    expect((await stat(join(driver.root, 'c', 'm1.json.svc-meta'))).nlink).toBe(4);
    expect((await readdir(join(driver.root, 'types.svc-meta'))).length).toBe(2);
    // A change of type names the previous body while the new one is written; once it is in place the sidecar is
    // a link to its new type's shared file.
    await driver.put('/c/m2.json', '<a> <b> <c>.', { contentType: 'text/turtle' });
    expect(await inode('m2.json.svc-meta')).toBe(await inode('t.svc-meta'));
    expect(JSON.parse(await readFile(join(driver.root, 'c', 'm2.json.svc-meta'), 'utf8'))).toEqual({ contentType: 'text/turtle' });
    await driver.delete('/c/m3.json');
    const reopened = await FsDriver.open(driver.root);
    expect((await reopened.head('/c/m1.json'))?.contentType).toBe('application/ld+json');
    expect((await reopened.head('/c/m2.json'))?.contentType).toBe('text/turtle');
    expect((await reopened.head('/c/t'))?.contentType).toBe('text/turtle');
    expect((await stat(join(driver.root, 'c', 'm1.json.svc-meta'))).nlink).toBe(2);
  });

  it('leave no shared file behind for a type no resource has any more (issue 30)', async () => {
    const driver = await freshDriver();
    const type = (i: number) => `application/x-t${i}-` + 'a'.repeat(200);
    for (let i = 0; i < 20; i++) await driver.put(`/d/f${i}`, '', { contentType: type(i) });
    expect(await readdir(join(driver.root, 'types.svc-meta'))).toHaveLength(20);
    // Retyped and deleted: each type's file goes with the last resource that had it.
    for (let i = 0; i < 10; i++) await driver.put(`/d/f${i}`, '', { contentType: type(100) });
    for (let i = 10; i < 20; i++) await driver.delete(`/d/f${i}`);
    expect(await readdir(join(driver.root, 'types.svc-meta'))).toHaveLength(1);
    for (let i = 0; i < 10; i++) expect((await driver.head(`/d/f${i}`))?.contentType).toBe(type(100));
    for (let i = 0; i < 10; i++) await driver.delete(`/d/f${i}`);
    expect(await readdir(join(driver.root, 'types.svc-meta'))).toHaveLength(0);
    // A type used again is written anew.
    await driver.put('/d/again', '', { contentType: type(3) });
    expect((await FsDriver.open(driver.root).then((fresh) => fresh.head('/d/again')))?.contentType).toBe(type(3));
  });

  it('are files of their own when the shared file was changed by hand', async () => {
    const driver = await freshDriver();
    await driver.put('/c/m1.json', '{}', { contentType: 'application/ld+json' });
    const [sharedName] = await readdir(join(driver.root, 'types.svc-meta'));
    const sharedFile = join(driver.root, 'types.svc-meta', sharedName!);
    await rm(sharedFile);
    await writeFile(sharedFile, '{"contentType":"text/plain"}');
    // A new process knows nothing of the shared file and finds it changed.
    const reopened = await FsDriver.open(driver.root);
    await reopened.put('/c/m2.json', '{}', { contentType: 'application/ld+json' });
    expect((await stat(join(driver.root, 'c', 'm2.json.svc-meta'))).ino).not.toBe((await stat(sharedFile)).ino);
    expect((await FsDriver.open(driver.root).then((fresh) => fresh.head('/c/m2.json')))?.contentType).toBe('application/ld+json');
  });
});

describe('fs driver caches', () => {
  const text = async (driver: FsDriver, path: string) => {
    const stored = await driver.get(path);
    return stored ? new Response(stored.body).text() : null;
  };
  const listed = async (driver: FsDriver, container: string) => {
    const paths: string[] = [];
    for await (const meta of driver.list(container)) paths.push(`${meta.path}:${meta.size}`);
    return paths.sort();
  };

  it('serves a file changed in place outside svc with its new content and ETag once it revalidates', async () => {
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 0 });
    await driver.put('/c/doc.txt', 'first', { contentType: 'text/plain' });
    const before = (await driver.get('/c/doc.txt'))!;
    expect(new TextDecoder().decode(before.bytes)).toBe('first');
    await writeFile(join(driver.root, 'c', 'doc.txt'), 'second, longer');
    const after = (await driver.get('/c/doc.txt'))!;
    expect(after.meta.etag).not.toBe(before.meta.etag);
    expect(await new Response(after.body).text()).toBe('second, longer');
    await rm(join(driver.root, 'c', 'doc.txt'));
    expect(await driver.get('/c/doc.txt')).toBeNull();
  });

  it('keeps the body a write of a new version was given, so the next read within revalidateAfterMs opens no file', async () => {
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 60_000 });
    await driver.put('/w/doc.ttl', '<a> <b> "first" .', { contentType: 'text/turtle' });
    await driver.put('/w/bin', 'first', { contentType: 'application/octet-stream' });
    await driver.put('/w/doc.ttl', '<a> <b> "written" .', { contentType: 'text/turtle' });
    await driver.put('/w/bin', new TextEncoder().encode('bytes'), { contentType: 'application/octet-stream' });
    // Changed behind the driver's back: a read that went to the file would see it.
    await writeFile(join(driver.root, 'w', 'doc.ttl'), '<a> <b> "edited" .');
    await writeFile(join(driver.root, 'w', 'bin'), 'other');
    expect(await text(driver, '/w/doc.ttl')).toBe('<a> <b> "written" .');
    expect(await text(driver, '/w/bin')).toBe('bytes');
  });

  it('leaves a new file out of the caches, so a stream of new files does not push out what is being read', async () => {
    // 24 KB in all: 8 KB of small bodies, so a few hundred new files of 1 KB would fill it many times over.
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 60_000, cacheBytes: 24 * 1024 });
    await driver.put('/hot/doc.txt', 'read often', { contentType: 'text/plain' });
    expect(await text(driver, '/hot/doc.txt')).toBe('read often');
    for (let i = 0; i < 300; i++) await driver.put(`/import/f${i}.txt`, 'x'.repeat(1024), { contentType: 'text/plain' });
    // Changed behind the driver's back: a read that went to the file would see it.
    await writeFile(join(driver.root, 'hot', 'doc.txt'), 'edited ...');
    await writeFile(join(driver.root, 'import', 'f299.txt'), 'edited');
    expect(await text(driver, '/hot/doc.txt')).toBe('read often');
    expect(await text(driver, '/import/f299.txt')).toBe('edited');
  });

  it('serves a cached body without looking at the file for revalidateAfterMs, but never a dot-file', async () => {
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 60_000 });
    await driver.put('/e/doc.txt', 'first', { contentType: 'text/plain' });
    await driver.put('/e/.quota.json', '{"limit":1}', { contentType: 'application/json' });
    await text(driver, '/e/doc.txt');
    await text(driver, '/e/.quota.json');
    await writeFile(join(driver.root, 'e', 'doc.txt'), 'edited outside');
    await writeFile(join(driver.root, 'e', '.quota.json'), '{"limit":2}');
    expect(await text(driver, '/e/doc.txt')).toBe('first');
    expect(await text(driver, '/e/.quota.json')).toBe('{"limit":2}');
    await driver.put('/e/doc.txt', 'through svc', { contentType: 'text/plain' });
    expect(await text(driver, '/e/doc.txt')).toBe('through svc');
  });

  it('forgets what it cached under a container when told another program changed it (git push)', async () => {
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 60_000 });
    await driver.put('/repo/src/a.txt', 'one', { contentType: 'text/plain' });
    await driver.put('/other/b.txt', 'kept', { contentType: 'text/plain' });
    await text(driver, '/repo/src/a.txt');
    expect(await listed(driver, '/repo/src/')).toEqual(['/repo/src/a.txt:3']);
    // Rewritten in place: the directory's mtime stays, so neither cache could notice soon by itself.
    await writeFile(join(driver.root, 'repo', 'src', 'a.txt'), 'three');
    expect(await text(driver, '/repo/src/a.txt')).toBe('one');
    driver.forgetCached('/repo/');
    expect(await text(driver, '/repo/src/a.txt')).toBe('three');
    expect(await listed(driver, '/repo/src/')).toEqual(['/repo/src/a.txt:5']);
    expect(await text(driver, '/other/b.txt')).toBe('kept');
  });

  it('lists files added or removed outside svc once it looks at the directory again, and every write through the driver at once', async () => {
    // revalidateAfterMs 0: the directory is looked at on every listing (by default at most once a second).
    const driver = await FsDriver.open((await freshDriver()).root, { revalidateAfterMs: 0 });
    await driver.put('/d/a', 'a', { contentType: 'text/plain' });
    expect(await listed(driver, '/d/')).toEqual(['/d/a:1']);
    await driver.put('/d/a', 'aaa', { contentType: 'text/plain' });
    await driver.put('/d/b', 'b', { contentType: 'text/plain' });
    expect(await listed(driver, '/d/')).toEqual(['/d/a:3', '/d/b:1']);
    await driver.delete('/d/b');
    expect(await listed(driver, '/d/')).toEqual(['/d/a:3']);
    // A new directory entry changes the directory's mtime, which invalidates the cached listing; the mtime is
    // set explicitly, since a coarse clock could give the new entry the same mtime as the last change.
    await writeFile(join(driver.root, 'd', 'outside.txt'), 'from outside');
    await utimes(join(driver.root, 'd'), new Date(), new Date(Date.now() + 60_000));
    expect(await listed(driver, '/d/')).toEqual(['/d/a:3', '/d/outside.txt:12']);
    expect(await text(driver, '/d/outside.txt')).toBe('from outside');
  });
});

describe('one directory entry per resource (layout 2)', () => {
  it('keeps JSON-LD without an extension and ACL documents without a sidecar, and a sidecar for a type the name does not say', async () => {
    const driver = await freshDriver();
    await driver.put('/e/doc', '{}', { contentType: 'application/ld+json' });
    await driver.put('/e/.acl', '<#a> <#b> <#c>.', { contentType: 'text/turtle' });
    await driver.put('/e/doc.acl', '<#a> <#b> <#c>.', { contentType: 'text/turtle' });
    await driver.put('/e/bin', 'bytes', { contentType: 'application/octet-stream' });
    expect((await readdir(join(driver.root, 'e'))).sort()).toEqual(['.acl', 'bin', 'bin.svc-meta', 'doc', 'doc.acl']);
    const reopened = await FsDriver.open(driver.root);
    expect([await reopened.head('/e/doc'), await reopened.head('/e/.acl'), await reopened.head('/e/bin')].map((meta) => meta?.contentType)).toEqual([
      'application/ld+json',
      'text/turtle',
      'application/octet-stream',
    ]);
  });

  /** A data directory as earlier versions wrote it: no layout record, the type of a name without an extension in a sidecar. */
  async function layoutOne(): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'svc-fs-'));
    roots.push(root);
    await mkdir(join(root, 'a', 'sub'), { recursive: true });
    await writeFile(join(root, 'a', 'card'), 'bytes, typed by no sidecar');
    await writeFile(join(root, 'a', 'doc'), '{}');
    await writeFile(join(root, 'a', 'doc.svc-meta'), '{"contentType":"application/ld+json"}');
    await writeFile(join(root, 'a', '.acl'), '<#a> <#b> <#c>.');
    await writeFile(join(root, 'a', '.acl.svc-meta'), '{"contentType":"text/turtle"}');
    await writeFile(join(root, 'a', 'sub', 'x.ttl'), '<#a> <#b> <#c>.');
    await writeFile(join(root, 'a', 'sub', 'prefs'), '{}');
    await writeFile(join(root, 'a', 'sub', 'prefs.svc-meta'), '{"contentType":"text/plain"}');
    return root;
  }
  const types = async (driver: FsDriver) =>
    Promise.all(['/a/card', '/a/doc', '/a/.acl', '/a/sub/x.ttl', '/a/sub/prefs'].map(async (path) => (await driver.head(path))?.contentType));
  const before = ['application/octet-stream', 'application/ld+json', 'text/turtle', 'text/turtle', 'text/plain'];

  it('reads a directory of an earlier version as it is when opened beside its server, and writes nothing', async () => {
    const root = await layoutOne();
    const beside = await FsDriver.open(root);
    expect(await types(beside)).toEqual(before);
    expect((await readdir(root)).sort()).toEqual(['a']);
  });

  it('upgrades it when its server opens it: every file keeps its type, with one directory entry where the name now says it', async () => {
    const root = await layoutOne();
    const server = await FsDriver.open(root, { recover: true, log: () => undefined });
    expect(await types(server)).toEqual(before);
    expect(JSON.parse(await readFile(join(root, '.svc-meta'), 'utf8'))).toEqual({ layout: 2 });
    expect((await readdir(join(root, 'a'))).sort()).toEqual(['.acl', 'card', 'card.svc-meta', 'doc', 'sub']);
    expect((await readdir(join(root, 'a', 'sub'))).sort()).toEqual(['prefs', 'prefs.svc-meta', 'x.ttl']);
    expect(await types(await FsDriver.open(root))).toEqual(before);
  });

  it('finishes an upgrade a crash cut short, with no type lost in between', async () => {
    const root = await layoutOne();
    // What the first pass leaves: the name's old type in a sidecar, the record saying the cleanup is due.
    await writeFile(join(root, 'a', 'card.svc-meta'), '{"contentType":"application/octet-stream"}');
    await writeFile(join(root, '.svc-meta'), '{"layout":2,"cleanup":true}');
    expect(await types(await FsDriver.open(root))).toEqual(before);
    const server = await FsDriver.open(root, { recover: true });
    expect(await types(server)).toEqual(before);
    expect((await readdir(join(root, 'a'))).sort()).toEqual(['.acl', 'card', 'card.svc-meta', 'doc', 'sub']);
    expect(JSON.parse(await readFile(join(root, '.svc-meta'), 'utf8'))).toEqual({ layout: 2 });
  });

  it('refuses to upgrade beside other servers (shared)', async () => {
    const root = await layoutOne();
    await expect(FsDriver.open(root, { recover: true, shared: true })).rejects.toThrow('without --redis-url');
    expect((await readdir(root)).sort()).toEqual(['a']);
  });

  it('keeps the type another program gave a file (git), where its name says another', async () => {
    const driver = await freshDriver();
    await mkdir(join(driver.root, 'repo'));
    await writeFile(join(driver.root, 'repo', 'LICENSE'), 'MIT');
    await writeFile(join(driver.root, 'repo', 'notes.txt'), 'text');
    await driver.keepType('/repo/LICENSE', 'application/octet-stream');
    await driver.keepType('/repo/notes.txt', 'text/plain');
    expect((await readdir(join(driver.root, 'repo'))).sort()).toEqual(['LICENSE', 'LICENSE.svc-meta', 'notes.txt']);
    expect((await driver.head('/repo/LICENSE'))?.contentType).toBe('application/octet-stream');
    await driver.keepType('/repo/LICENSE', 'application/ld+json');
    expect((await readdir(join(driver.root, 'repo'))).sort()).toEqual(['LICENSE', 'notes.txt']);
  });
});

describe('fs driver recovery at startup', () => {
  it('sweeps temp files and stranded sidecars, and tells an unclean stop from a clean one', async () => {
    const first = await FsDriver.open(await mkdtemp(join(tmpdir(), 'svc-fs-')), { recover: true });
    roots.push(first.root);
    expect(first.uncleanStop).toBe(false);
    await first.put('/a/note', 'x', { contentType: 'text/plain' });
    await first.close();
    expect((await readdir(first.root)).sort()).toEqual(['.svc-meta', 'a', 'types.svc-meta']);

    // What a kill leaves: the running marker, temp files in the root, a sidecar whose file is gone, and
    // (from earlier versions) a sidecar temp file beside its sidecar.
    await FsDriver.open(first.root, { recover: true });
    await writeFile(join(first.root, '.svc-tmp-0123456789ab'), 'half a body');
    await writeFile(join(first.root, 'a', 'gone.svc-meta'), '{"contentType":"text/plain"}');
    await writeFile(join(first.root, 'a', 'note.svc-meta.0a1b2c3d.svc-meta'), '{"contentType":"text/plain"}');
    // A command opening the directory beside the server leaves all of it alone.
    const beside = await FsDriver.open(first.root);
    await beside.close();
    expect((await readdir(first.root)).sort()).toEqual(['.svc-meta', '.svc-tmp-0123456789ab', '.svc-tmp-running', 'a', 'types.svc-meta']);

    const restarted = await FsDriver.open(first.root, { recover: true });
    expect(restarted.uncleanStop).toBe(true);
    expect((await readdir(first.root)).sort()).toEqual(['.svc-meta', '.svc-tmp-running', 'a', 'types.svc-meta']);
    expect((await readdir(join(first.root, 'a'))).sort()).toEqual(['note', 'note.svc-meta']);
    expect((await restarted.head('/a/note'))?.contentType).toBe('text/plain');
    await restarted.close();
    expect((await FsDriver.open(first.root, { recover: true })).uncleanStop).toBe(false);
  });

  it('beside other servers (shared), spares young temp files, which may be their writes in flight, and keeps the marker', async () => {
    const root = await mkdtemp(join(tmpdir(), 'svc-fs-'));
    roots.push(root);
    const running = await FsDriver.open(root, { recover: true, shared: true });
    await writeFile(join(root, '.svc-tmp-0123456789ab'), 'a body being written');
    await writeFile(join(root, '.svc-tmp-ba9876543210'), 'left by a crash long ago');
    const longAgo = new Date(Date.now() - 2 * 3600_000);
    await utimes(join(root, '.svc-tmp-ba9876543210'), longAgo, longAgo);

    const joining = await FsDriver.open(root, { recover: true, shared: true });
    expect(joining.uncleanStop).toBe(false);
    expect((await readdir(root)).sort()).toEqual(['.svc-meta', '.svc-tmp-0123456789ab', '.svc-tmp-running']);
    await joining.close();
    await running.close();
    // A later start alone cannot know how the others stopped: it recounts.
    expect((await FsDriver.open(root, { recover: true })).uncleanStop).toBe(true);
  });
});
