import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { StorageDriver } from '../../src/storage/types.ts';
import { FsDriver } from '../../storage-drivers/fs.ts';
import { MemoryDriver } from '../../storage-drivers/memory.ts';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from './pods.ts';

const publicRead = `<#public> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;

const drivers: [string, () => Promise<StorageDriver>][] = [
  ['memory', async () => new MemoryDriver()],
  [
    'fs',
    async () => {
      const root = await mkdtemp(join(tmpdir(), 'svc-decisions-'));
      onTestFinished(() => rm(root, { recursive: true, force: true }));
      return FsDriver.open(root);
    },
  ],
];

// Access decisions are kept across requests (web-access-control.ts): each request below is a new caller, and
// must see the ACL as the write before it left it.
describe.each(drivers)('access decisions kept across requests (%s driver)', (_name, driver) => {
  it('follow every ACL write and delete at once', async () => {
    const world = await podWorld(['alice'], {}, {}, await driver());
    const owner = ownerRule(`${BASE}/alice/#me`);
    expect((await world.as('alice', '/alice/shared/doc', putText())).status).toBe(201);
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(401);
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(401);
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(owner + publicRead))).status).toBe(201);
    const opened = await world.as(null, '/alice/shared/doc');
    expect(opened.status).toBe(200);
    expect(opened.headers.get('wac-allow')).toBe('user="read",public="read"');
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(owner))).status).toBe(204);
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(401);
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(owner + publicRead))).status).toBe(204);
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(200);
    expect((await world.as('alice', '/alice/shared/.acl', { method: 'DELETE' })).status).toBe(204);
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(401);
  });

  it('forget a container’s ACL once the container is deleted and made again', async () => {
    const world = await podWorld(['alice'], {}, {}, await driver());
    expect((await world.as('alice', '/alice/box/doc', putText())).status).toBe(201);
    expect((await world.as('alice', '/alice/box/.acl', putTurtleAcl(ownerRule(`${BASE}/alice/#me`) + publicRead))).status).toBe(201);
    expect((await world.as(null, '/alice/box/doc')).status).toBe(200);
    expect((await world.as('alice', '/alice/box/doc', { method: 'DELETE' })).status).toBe(204);
    expect((await world.as('alice', '/alice/box/', { method: 'DELETE' })).status).toBe(204);
    expect((await world.as('alice', '/alice/box/doc', putText())).status).toBe(201);
    expect((await world.as(null, '/alice/box/doc')).status).toBe(401);
  });

  it('follow a group document changed by an ordinary write', async () => {
    // Turtle is taken for the group document with --conneg.
    const world = await podWorld(['alice', 'bob'], { conneg: true }, {}, await driver());
    const group = (members: string) => ({ method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: `<#friends> <http://www.w3.org/2006/vcard/ns#hasMember> ${members}.\n` });
    expect((await world.as('alice', '/alice/groups', group(`<${BASE}/alice/#me>`))).status).toBe(201);
    expect((await world.as('alice', '/alice/shared/doc', putText())).status).toBe(201);
    const friends = `<#friends> a acl:Authorization; acl:agentGroup </alice/groups#friends>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(ownerRule(`${BASE}/alice/#me`) + friends))).status).toBe(201);
    expect((await world.as('bob', '/alice/shared/doc')).status).toBe(403);
    expect((await world.as('bob', '/alice/shared/doc')).status).toBe(403);
    expect((await world.as('alice', '/alice/groups', group(`<${BASE}/alice/#me>, <${BASE}/bob/#me>`))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/doc')).status).toBe(200);
    expect((await world.as('alice', '/alice/groups', group(`<${BASE}/alice/#me>`))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/doc')).status).toBe(403);
  });

  it('apply a foreign Origin per request: one app’s grant is not another’s', async () => {
    const world = await podWorld(['alice'], {}, {}, await driver());
    const app = `<#app> a acl:Authorization; acl:agentClass foaf:Agent; acl:origin <https://app.example>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
    const restricted = `<#owner> a acl:Authorization; acl:agent </alice/#me>; acl:origin <https://app.example>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.\n`;
    expect((await world.as('alice', '/alice/shared/doc', putText())).status).toBe(201);
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(restricted + app))).status).toBe(201);
    const from = (origin: string) => ({ headers: { origin } });
    expect((await world.as('alice', '/alice/shared/doc', from('https://app.example'))).status).toBe(200);
    expect((await world.as('alice', '/alice/shared/doc', from('https://other.example'))).status).toBe(403);
    expect((await world.as(null, '/alice/shared/doc', from('https://app.example'))).status).toBe(200);
    expect((await world.as(null, '/alice/shared/doc', from('https://other.example'))).status).toBe(401);
    // Without an Origin header (not a browser app) acl:origin restricts nothing.
    expect((await world.as(null, '/alice/shared/doc')).status).toBe(200);
  });
});
