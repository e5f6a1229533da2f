import { mkdtemp, rename, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FsDriver } from '../../storage-drivers/fs.ts';
import type { FsOptions } from '../../storage-drivers/fs-options.ts';

/** Directory scans of the driver, counted: a listing updated in place reads no directory. */
const scans = vi.hoisted(() => ({ count: 0 }));
vi.mock('node:fs/promises', async (original) => {
  const fs = await original<typeof import('node:fs/promises')>();
  return {
    ...fs,
    readdir: ((...args: Parameters<typeof fs.readdir>) => {
      scans.count++;
      return fs.readdir(...args);
    }) as typeof fs.readdir,
  };
});

const roots: string[] = [];
async function freshDriver(options: FsOptions = {}): Promise<FsDriver> {
  const root = await mkdtemp(join(tmpdir(), 'svc-fs-listing-'));
  roots.push(root);
  return FsDriver.open(root, options);
}
afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

const json = { contentType: 'application/ld+json' };

/** A container with a few members (a sub-container, a file with a sidecar, an ACL), listed once so its listing is cached. */
async function listedContainer(driver: FsDriver): Promise<void> {
  for (const name of ['b.json', 'd.json', 'f.json']) await driver.put(`/c/${name}`, `{"name":"${name}"}`, json);
  await driver.put('/c/typed', 'text', { contentType: 'text/plain' });
  await driver.put('/c/.acl', '<#a> a <#b>.', { contentType: 'text/turtle' });
  await driver.createContainer('/c/sub/');
  // Changed a while ago: the next change gets another mtime even where the clock's ticks are coarse.
  await utimes(join(driver.root, 'c'), new Date(1_700_000_000_000), new Date(1_700_000_000_000));
  await driver.children('/c/');
  await driver.children('/');
}

/** What a driver that never saw the directory (a cold scan) lists and says of the container. */
async function coldView(driver: FsDriver, container: string) {
  const cold = await FsDriver.open(driver.root);
  return { members: [...(await cold.children(container))], meta: await cold.head(container) };
}

async function expectAsCold(driver: FsDriver, container: string, etagBefore: string): Promise<void> {
  const cold = await coldView(driver, container);
  expect([...(await driver.children(container))]).toEqual(cold.members);
  const meta = await driver.head(container);
  expect(meta).toEqual(cold.meta);
  expect(meta!.etag).not.toBe(etagBefore);
}

describe.each([
  ['blocking calls', {}],
  ['spares reused at once', { spares: { minAgeMs: 0 } }],
] as const)('the fs listing after a write through svc (%s)', (_, options) => {
  const writes: [string, (driver: FsDriver) => Promise<unknown>][] = [
    ['a PUT over a member', (driver) => driver.put('/c/d.json', '{"name":"d, longer now"}', json)],
    ['a PUT of a new member', (driver) => driver.put('/c/e.json', '{}', json)],
    ['a PUT of a new first member', (driver) => driver.put('/c/a.json', '{}', json)],
    ['a PUT of a new last member', (driver) => driver.put('/c/z.json', '{}', json)],
    ['a create-only PUT (POST)', (driver) => driver.put('/c/post-1', 'posted', { contentType: 'text/plain', ifNoneMatch: '*' })],
    ['a DELETE of a member', (driver) => driver.delete('/c/d.json')],
    ['a DELETE of a member with a sidecar', (driver) => driver.delete('/c/typed')],
    ['a PUT that changes a member type (its sidecar)', (driver) => driver.put('/c/b.json', 'now text', { contentType: 'text/plain' })],
    ['a PUT of the ACL', (driver) => driver.put('/c/.acl', '<#a> a <#c>.', { contentType: 'text/turtle' })],
  ];
  it.each(writes)('%s lists what a cold scan lists, with a new container ETag, and reads no directory', async (_, write) => {
    const driver = await freshDriver(options);
    await listedContainer(driver);
    const before = [...(await driver.children('/c/'))];
    const etagBefore = (await driver.head('/c/'))!.etag;
    const scansBefore = scans.count;
    await write(driver);
    const after = await driver.children('/c/');
    expect(scans.count).toBe(scansBefore);
    // A new array: what was made of the old one (bodies) is not served for the new state; the old one is unchanged.
    expect(after).not.toBe(before);
    expect([...(await coldView(driver, '/c/')).members]).not.toEqual(before);
    await expectAsCold(driver, '/c/', etagBefore);
    // The parent's member for the container (its directory's version) is current too.
    expect([...(await driver.children('/'))]).toEqual((await coldView(driver, '/')).members);
  });

  it('keeps a listing handed out unchanged', async () => {
    const driver = await freshDriver(options);
    await listedContainer(driver);
    const handedOut = await driver.children('/c/');
    const copy = handedOut.map((member) => ({ ...member }));
    await driver.put('/c/e.json', '{}', json);
    await driver.delete('/c/b.json');
    expect(handedOut).toEqual(copy);
  });
});

describe('the fs listing after writes it cannot simply update', () => {
  const cases: [string, (driver: FsDriver) => Promise<unknown>][] = [
    ['a PUT that creates containers', (driver) => driver.put('/c/new/deeper/x.json', '{}', json)],
    ['a PUT into a sub-container', (driver) => driver.put('/c/sub/x.json', '{}', json)],
    ['a container created', (driver) => driver.createContainer('/c/made/')],
    ['a container deleted', (driver) => driver.delete('/c/sub/')],
    ['a type kept for a file written outside svc', (driver) => driver.keepType('/c/b.json', 'text/plain')],
    ['two PUTs at once', (driver) => Promise.all([driver.put('/c/e.json', '{}', json), driver.put('/c/g.json', '{}', json), driver.delete('/c/d.json')])],
    ['a PUT refused (create-only over an existing member)', (driver) => driver.put('/c/b.json', '{}', { ...json, ifNoneMatch: '*' })],
  ];
  it.each(cases)('%s: the container lists what a cold scan lists', async (_, write) => {
    const driver = await freshDriver();
    await listedContainer(driver);
    await driver.children('/c/sub/');
    await write(driver);
    expect([...(await driver.children('/c/'))]).toEqual((await coldView(driver, '/c/')).members);
    expect([...(await driver.children('/'))]).toEqual((await coldView(driver, '/')).members);
    expect(await driver.head('/c/')).toEqual((await coldView(driver, '/c/')).meta);
  });

  it('scans again when the directory changed outside svc before the write', async () => {
    const driver = await freshDriver();
    await listedContainer(driver);
    // Another program adds a file (as editors and git do, by a rename), then svc writes before the next listing.
    await writeFile(join(driver.root, 'c', 'outside.tmp-edit'), '{}');
    await rename(join(driver.root, 'c', 'outside.tmp-edit'), join(driver.root, 'c', 'outside.json'));
    await driver.put('/c/e.json', '{}', json);
    const paths = (await driver.children('/c/')).map((member) => member.path);
    expect(paths).toContain('/c/outside.json');
    expect(paths).toContain('/c/e.json');
  });

  it('scans again after each write where other servers share the directory', async () => {
    const driver = await freshDriver({ shared: true, revalidateAfterMs: 0 });
    const other = await FsDriver.open(driver.root, { shared: true, revalidateAfterMs: 0 });
    await listedContainer(driver);
    const scansBefore = scans.count;
    await driver.put('/c/e.json', '{}', json);
    expect((await driver.children('/c/')).map((member) => member.path)).toContain('/c/e.json');
    expect(scans.count).toBeGreaterThan(scansBefore);
    await other.put('/c/g.json', '{}', json);
    expect((await driver.children('/c/')).map((member) => member.path)).toEqual(expect.arrayContaining(['/c/e.json', '/c/g.json']));
    expect([...(await driver.children('/c/'))]).toEqual((await coldView(driver, '/c/')).members);
  });
});
