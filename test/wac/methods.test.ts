import { describe, expect, it } from 'vitest';
import { BASE } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl, type PodWorld } from './pods.ts';

type Mode = 'Read' | 'Write' | 'Append' | 'Control';

/** Alice's pod with /alice/shared/doc, where bob holds exactly `modes` (on the container and, by default, on its members). */
async function sharedWith(modes: readonly Mode[]): Promise<PodWorld> {
  const world = await podWorld(['alice', 'bob']);
  expect((await world.as('alice', '/alice/shared/doc', putText('original'))).status).toBe(201);
  let acl = ownerRule('../#me');
  if (modes.length > 0) {
    acl += `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode ${modes.map((m) => 'acl:' + m).join(', ')}.\n`;
  }
  expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(acl))).status).toBe(201);
  return world;
}

interface Operation {
  name: string;
  success: number;
  /** Does bob, holding these modes, pass the access check? */
  allowed(modes: readonly Mode[]): boolean;
  run(world: PodWorld, who: string | null): Promise<Response>;
}

const has = (modes: readonly Mode[], ...wanted: Mode[]) => wanted.some((m) => modes.includes(m));

const OPERATIONS: Operation[] = [
  { name: 'GET resource', success: 200, allowed: (m) => has(m, 'Read'), run: (w, who) => w.as(who, '/alice/shared/doc') },
  { name: 'HEAD resource', success: 200, allowed: (m) => has(m, 'Read'), run: (w, who) => w.as(who, '/alice/shared/doc', { method: 'HEAD' }) },
  { name: 'GET container', success: 200, allowed: (m) => has(m, 'Read'), run: (w, who) => w.as(who, '/alice/shared/') },
  { name: 'PUT new resource', success: 201, allowed: (m) => has(m, 'Write'), run: (w, who) => w.as(who, '/alice/shared/new', putText()) },
  { name: 'PUT existing resource', success: 204, allowed: (m) => has(m, 'Write'), run: (w, who) => w.as(who, '/alice/shared/doc', putText('changed')) },
  {
    name: 'POST to container',
    success: 201,
    allowed: (m) => has(m, 'Append', 'Write'),
    run: (w, who) => w.as(who, '/alice/shared/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'note' }),
  },
  { name: 'DELETE resource', success: 204, allowed: (m) => has(m, 'Write'), run: (w, who) => w.as(who, '/alice/shared/doc', { method: 'DELETE' }) },
  { name: 'GET container ACL', success: 200, allowed: (m) => has(m, 'Control'), run: (w, who) => w.as(who, '/alice/shared/.acl', { headers: { accept: 'application/ld+json' } }) },
  { name: 'GET absent resource ACL', success: 404, allowed: (m) => has(m, 'Control'), run: (w, who) => w.as(who, '/alice/shared/doc.acl') },
  {
    name: 'PUT resource ACL',
    success: 201,
    allowed: (m) => has(m, 'Control'),
    run: (w, who) => w.as(who, '/alice/shared/doc.acl', putTurtleAcl(`<#r> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./doc>; acl:mode acl:Read.\n`)),
  },
  { name: 'DELETE container ACL', success: 204, allowed: (m) => has(m, 'Control'), run: (w, who) => w.as(who, '/alice/shared/.acl', { method: 'DELETE' }) },
];

const GRANTS: Mode[][] = [[], ['Read'], ['Append'], ['Write'], ['Control'], ['Read', 'Write']];

describe('required modes per method (bob in alice\'s pod)', () => {
  for (const operation of OPERATIONS) {
    for (const modes of GRANTS) {
      const allowed = operation.allowed(modes);
      it(`${operation.name} with ${modes.join('+') || 'no modes'}: ${allowed ? operation.success : 403}`, async () => {
        const world = await sharedWith(modes);
        const response = await operation.run(world, 'bob');
        expect(response.status).toBe(allowed ? operation.success : 403);
      });
    }
    it(`${operation.name} anonymously: 401 with a Bearer and DPoP challenge`, async () => {
      const world = await sharedWith(['Read', 'Write', 'Control']);
      const response = await operation.run(world, null);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(`Bearer realm="${BASE}", DPoP realm="${BASE}"`);
    });
    it(`${operation.name} as the owner: ${operation.success}`, async () => {
      const world = await sharedWith([]);
      expect((await operation.run(world, 'alice')).status).toBe(operation.success);
    });
  }

  it('PUT of a new resource needs Append or Write on the parent besides Write on the target', async () => {
    const world = await sharedWith([]);
    // Write on the (future) target through its own ACL is not enough without Append on the container.
    const acl = `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./fresh>; acl:mode acl:Write.\n<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./fresh>; acl:mode acl:Control.\n`;
    expect((await world.as('alice', '/alice/shared/fresh.acl', putTurtleAcl(acl))).status).toBe(201);
    expect((await world.as('bob', '/alice/shared/fresh', putText())).status).toBe(403);
    const containerAcl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./>; acl:mode acl:Append.\n`;
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(containerAcl))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/fresh', putText())).status).toBe(201);
  });

  it('DELETE needs Write on the parent container too', async () => {
    const world = await sharedWith([]);
    const acl = `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./doc>; acl:mode acl:Write.\n`;
    expect((await world.as('alice', '/alice/shared/doc.acl', putTurtleAcl(acl))).status).toBe(201);
    expect((await world.as('bob', '/alice/shared/doc', putText('bob was here'))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/doc', { method: 'DELETE' })).status).toBe(403);
  });

  it.todo('PATCH that only inserts needs Append; with deletes Write; with a where clause also Read (the PATCH handler calls require)');
});

describe('WAC-Allow', () => {
  it('is on GET, HEAD and OPTIONS answers, without a space after the comma', async () => {
    const world = await sharedWith(['Read', 'Append']);
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      const response = await world.as('bob', '/alice/shared/doc', { method });
      expect(response.headers.get('wac-allow')).toBe('user="read append",public=""');
    }
    const owner = await world.as('alice', '/alice/shared/doc', { method: 'HEAD' });
    expect(owner.headers.get('wac-allow')).toBe('user="read write append control",public=""');
    const profile = await world.as(null, '/alice/', { method: 'HEAD' });
    expect(profile.headers.get('wac-allow')).toBe('user="read",public="read"');
  });
});

describe('denials reveal nothing', () => {
  it('answers the same for existing and missing resources', async () => {
    const world = await sharedWith([]);
    for (const who of [null, 'bob']) {
      const existing = await world.as(who, '/alice/private/');
      const missing = await world.as(who, '/alice/private/nothing-here');
      expect(existing.status).toBe(who ? 403 : 401);
      expect(missing.status).toBe(existing.status);
      expect(missing.headers.get('etag')).toBeNull();
      expect(Object.keys(await missing.json())).toEqual(Object.keys(await existing.json()));
    }
  });
});

describe('--public', () => {
  it('skips every ACL check', async () => {
    const world = await podWorld(['alice'], { public: true });
    expect((await world.as(null, '/alice/private/x', putText())).status).toBe(201);
    expect((await world.as(null, '/alice/private/x')).status).toBe(200);
  });
});
