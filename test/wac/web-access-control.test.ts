import { describe, expect, it } from 'vitest';
import { ACL_MAX_AGE_MS, AclCache } from '../../src/wac/acl-cache.ts';
import type { Caller } from '../../src/wac/access-control.ts';
import { WebAccessControl } from '../../src/wac/web-access-control.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

const publicAcl = (mode: string) =>
  `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#a> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:default <./>; acl:mode acl:${mode}.\n`;

describe('WebAccessControl', () => {
  it('keeps the modes it worked out for one request to that caller object: a copy of it (a later check) works them out again', async () => {
    const storage = new MemoryDriver();
    let now = 0;
    const access = new WebAccessControl(storage, new AclCache(storage, () => undefined, () => now), { ownerOf: async () => null, version: () => 0 });
    await storage.put('/box/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const caller: Caller = { webId: null, origin: null, serverOrigin: 'http://localhost' };
    expect((await access.allowedModes(caller, '/box/doc')).user).toEqual(['read']);
    // Changed behind the server's back, and the cached ACL aged: a new request sees it, this one does not.
    await storage.put('/box/.acl', publicAcl('Write'), { contentType: 'text/turtle' });
    now = ACL_MAX_AGE_MS;
    expect((await access.allowedModes(caller, '/box/doc')).user).toEqual(['read']);
    expect((await access.allowedModes({ ...caller }, '/box/doc')).user).toEqual(['write', 'append']);
  });

  it('decides a warm check without looking at the ACLs again: a new caller with the same WebID and origins reuses the decision', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    const access = new WebAccessControl(storage, cache, { ownerOf: async () => null, version: () => 0 });
    await storage.put('/box/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const caller = (): Caller => ({ webId: null, origin: null, serverOrigin: 'http://localhost' });
    await access.require(caller(), [{ path: '/box/doc', anyOf: ['read'] }]);
    let walks = 0;
    const walk = cache.effectiveAcl.bind(cache);
    cache.effectiveAcl = (path) => (walks++, walk(path));
    await access.require(caller(), [{ path: '/box/doc', anyOf: ['read'] }]);
    expect((await access.allowedModes(caller(), '/box/doc')).user).toEqual(['read']);
    expect(walks).toBe(0);
    // Another origin served is another decision (IRIs on it count as this server's).
    await access.allowedModes({ ...caller(), serverOrigin: 'http://other.test' }, '/box/doc');
    expect(walks).toBe(1);
  });

  it('awaits the decision it started when a later requirement needs reading: its failure is the answer, not an unhandled rejection', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    const access = new WebAccessControl(storage, cache, { ownerOf: async () => null, version: () => 0 });
    await storage.put('/box/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const caller = (): Caller => ({ webId: null, origin: null, serverOrigin: 'http://localhost' });
    await access.require(caller(), [{ path: '/box/a', anyOf: ['read'] }]);
    const read = storage.get.bind(storage);
    storage.get = (path, options) => (path.startsWith('/other/') ? Promise.reject(new Error('disk unreadable')) : read(path, options));
    // An ACL written while the check waits on its first (held) decision: the second one is made again after it.
    queueMicrotask(() => cache.invalidate('/elsewhere/.acl'));
    const both = access.require(caller(), [{ path: '/box/a', anyOf: ['read'] }, { path: '/other/b', anyOf: ['read'] }]);
    await expect(both).rejects.toThrow('disk unreadable');
  });

  it('keeps a decision no longer than the oldest ACL document it came from, for changes made on disk', async () => {
    const storage = new MemoryDriver();
    let now = 0;
    const access = new WebAccessControl(storage, new AclCache(storage, () => undefined, () => now), { ownerOf: async () => null, version: () => 0 });
    await storage.put('/box/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const anonymous = (): Caller => ({ webId: null, origin: null, serverOrigin: 'http://localhost' });
    const alice = (): Caller => ({ webId: 'http://localhost/alice/#me', origin: null, serverOrigin: 'http://localhost' });
    expect((await access.allowedModes(anonymous(), '/box/doc')).user).toEqual(['read']);
    // Decided later, from the document read at 0.
    now = ACL_MAX_AGE_MS - 1000;
    expect((await access.allowedModes(alice(), '/box/doc')).user).toEqual(['read']);
    await storage.put('/box/.acl', publicAcl('Write'), { contentType: 'text/turtle' });
    now = ACL_MAX_AGE_MS;
    expect((await access.allowedModes(alice(), '/box/doc')).user).toEqual(['write', 'append']);
  });

  it('decides again once a pod is made: its owner has Control there', async () => {
    const storage = new MemoryDriver();
    const access = new WebAccessControl(storage, new AclCache(storage, () => undefined, () => 0), {
      ownerOf: async () => owner,
      version: () => (owner === null ? 0 : 1),
    });
    let owner: string | null = null;
    await storage.put('/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const alice = (): Caller => ({ webId: 'http://localhost/alice/#me', origin: null, serverOrigin: 'http://localhost' });
    expect((await access.allowedModes(alice(), '/alice/doc')).user).toEqual(['read']);
    owner = '/alice/#me';
    expect((await access.allowedModes(alice(), '/alice/doc')).user).toEqual(['read', 'control']);
  });

  it('keeps decisions within their byte bound', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    const access = new WebAccessControl(storage, cache, { ownerOf: async () => null, version: () => 0 }, null, 2000);
    await storage.put('/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const caller = (): Caller => ({ webId: null, origin: null, serverOrigin: 'http://localhost' });
    for (let i = 0; i < 20; i++) await access.allowedModes(caller(), `/doc-${i}`);
    let walks = 0;
    const walk = cache.effectiveAcl.bind(cache);
    cache.effectiveAcl = (path) => (walks++, walk(path));
    for (let i = 0; i < 20; i++) expect((await access.allowedModes(caller(), `/doc-${i}`)).user).toEqual(['read']);
    // Room for a few of the 20 only: the others are decided again.
    expect(walks).toBeGreaterThan(10);
  });

  it('keeps the decisions of many callers on one path within the same bound', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    const access = new WebAccessControl(storage, cache, { ownerOf: async () => null, version: () => 0 }, null, 8000);
    await storage.put('/.acl', publicAcl('Read'), { contentType: 'text/turtle' });
    const caller = (i: number): Caller => ({ webId: `https://agent${i}.example/profile#me`, origin: null, serverOrigin: 'http://localhost' });
    for (let i = 0; i < 20; i++) await access.allowedModes(caller(i), '/doc');
    let walks = 0;
    const walk = cache.effectiveAcl.bind(cache);
    cache.effectiveAcl = (path) => (walks++, walk(path));
    for (let i = 0; i < 20; i++) expect((await access.allowedModes(caller(i), '/doc')).user).toEqual(['read']);
    expect(walks).toBeGreaterThan(10);
    // A few callers fit: asked again at once, they are answered from the kept decisions.
    walks = 0;
    await access.allowedModes(caller(19), '/doc');
    expect(walks).toBe(0);
  });
});
