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
});
