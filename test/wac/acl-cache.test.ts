import { describe, expect, it } from 'vitest';
import { ACL_MAX_AGE_MS, AclCache } from '../../src/wac/acl-cache.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';

const acl = (mode: string) =>
  `@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#a> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:mode acl:${mode}.\n`;

describe('AclCache', () => {
  it('sees an ACL changed behind its back (on disk, by another instance) once the entry is older than its maximum age', async () => {
    const storage = new MemoryDriver();
    let now = 0;
    const cache = new AclCache(storage, () => undefined, () => now);
    await storage.put('/box/.acl', acl('Read'), { contentType: 'text/turtle' });
    const modes = async () => (await cache.effectiveAcl('/box/'))!.authorizations.flatMap((a) => [...a.modes]);
    expect(await modes()).toEqual(['read']);
    // Written straight to the driver: no invalidation reaches the cache.
    await storage.put('/box/.acl', acl('Write'), { contentType: 'text/turtle' });
    now = ACL_MAX_AGE_MS - 1;
    expect(await modes()).toEqual(['read']);
    now = ACL_MAX_AGE_MS;
    expect(await modes()).toEqual(['write']);
  });

  it('forgets an ACL at once when told it was written', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    await storage.put('/box/.acl', acl('Read'), { contentType: 'text/turtle' });
    expect((await cache.effectiveAcl('/box/'))!.governedBy).toBe('/box/');
    await storage.delete('/box/.acl');
    cache.invalidate('/box/.acl');
    expect(await cache.effectiveAcl('/box/')).toBeNull();
  });

  it('reads an aged or missing ACL document once for all the requests that ask for it meanwhile', async () => {
    const storage = new MemoryDriver();
    let now = 0;
    const cache = new AclCache(storage, () => undefined, () => now);
    await storage.put('/box/.acl', acl('Read'), { contentType: 'text/turtle' });
    const reads: string[] = [];
    const get = storage.get.bind(storage);
    storage.get = (path, options) => {
      reads.push(path);
      return get(path, options);
    };
    const lookups = () => Promise.all(Array.from({ length: 20 }, () => cache.effectiveAcl('/box/doc')));
    expect((await lookups()).every((found) => found?.governedBy === '/box/')).toBe(true);
    expect(reads).toEqual(['/box/doc.acl', '/box/.acl']);
    now = ACL_MAX_AGE_MS;
    await lookups();
    expect(reads).toHaveLength(4);
  });

  it('does not hand a load begun before an ACL write to a request made after it', async () => {
    const storage = new MemoryDriver();
    const cache = new AclCache(storage, () => undefined, () => 0);
    await storage.put('/box/.acl', acl('Read'), { contentType: 'text/turtle' });
    const before = cache.effectiveAcl('/box/');
    await storage.put('/box/.acl', acl('Write'), { contentType: 'text/turtle' });
    cache.invalidate('/box/.acl');
    const after = cache.effectiveAcl('/box/');
    await before;
    expect((await after)!.authorizations.flatMap((a) => [...a.modes])).toEqual(['write']);
  });
});
