import { describe, expect, it } from 'vitest';
import { parseAllowedHosts } from '../../src/http/allowed-hosts.ts';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putTurtleAcl } from '../wac/pods.ts';

/** Alice shares a folder with bob of *another* server, https://b.example/bob/#me, and with nobody here. */
async function sharedWithForeignBob(flags: Record<string, unknown>) {
  const world = await podWorld(['alice', 'bob'], flags);
  const acl = ownerRule('../#me') + `<#foreign> a acl:Authorization; acl:agent <https://b.example/bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.\n`;
  expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(acl))).status).toBe(201);
  // This server's bob asks under the other server's host name, so that `/bob/#me` would look like that WebID.
  const spoofed = (path: string) => world.app.fetch(new Request(`https://b.example${path}`, { headers: { authorization: `Bearer ${world.tokens.bob}` } }));
  return { world, spoofed };
}

describe('--allowed-hosts', () => {
  it('answers other hosts with 421, so a Host header cannot make a foreign WebID local', async () => {
    const { world, spoofed } = await sharedWithForeignBob({ allowedHosts: new URL(BASE).host });
    const refused = await spoofed('/alice/shared/');
    expect(refused.status).toBe(421);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect((await world.as('alice', '/alice/shared/')).status).toBe(200);
    expect((await world.as('bob', '/alice/shared/')).status).toBe(403);
  });

  it('without it, the Host header decides (the documented limit this option closes)', async () => {
    const { spoofed } = await sharedWithForeignBob({});
    expect((await spoofed('/alice/shared/')).status).toBe(200);
  });

  it('takes names with or without a port, and refuses what is not a host', () => {
    expect(parseAllowedHosts(' pods.example, localhost:3000 ,[::1]')).toEqual(new Set(['pods.example', 'localhost:3000', '[::1]']));
    expect(parseAllowedHosts('')).toBeNull();
    expect(() => parseAllowedHosts('pods.example/path')).toThrow(/allowed-hosts/);
  });
});
