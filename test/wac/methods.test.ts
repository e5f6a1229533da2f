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

  it('PUT that creates containers on the way needs Append or Write where each of them is created', async () => {
    const world = await sharedWith([]);
    // Bob may write the members of shared/ (acl:default) but not add to shared/ itself (no acl:accessTo).
    const acl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:default <./>; acl:mode acl:Write.\n`;
    expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(acl))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/fresh', putText())).status).toBe(403);
    expect((await world.as('bob', '/alice/shared/new/deeper/fresh', putText())).status).toBe(403);
    expect((await world.as('alice', '/alice/shared/new/', { method: 'HEAD' })).status).toBe(404);
    // Once the container exists, new members of it (and containers below it) are bob's to create.
    expect((await world.as('alice', '/alice/shared/new/', { method: 'PUT' })).status).toBe(201);
    expect((await world.as('bob', '/alice/shared/new/deeper/fresh', putText())).status).toBe(201);
  });

  it('DELETE needs Write on the parent container too', async () => {
    const world = await sharedWith([]);
    const acl = `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./doc>; acl:mode acl:Write.\n`;
    expect((await world.as('alice', '/alice/shared/doc.acl', putTurtleAcl(acl))).status).toBe(201);
    expect((await world.as('bob', '/alice/shared/doc', putText('bob was here'))).status).toBe(204);
    expect((await world.as('bob', '/alice/shared/doc', { method: 'DELETE' })).status).toBe(403);
  });

  describe('PATCH: inserting needs Append, deleting Write, a where clause Read', () => {
    const GRAPH = JSON.stringify({ '@id': '#a', 'http://ex/p': 1 });
    const sparql = (body: string): RequestInit => ({ method: 'PATCH', headers: { 'content-type': 'application/sparql-update' }, body });
    const n3 = (clauses: string): RequestInit => ({
      method: 'PATCH',
      headers: { 'content-type': 'text/n3' },
      body: `@prefix solid: <http://www.w3.org/ns/solid/terms#>. _:patch a solid:InsertDeletePatch; ${clauses}.`,
    });
    const PATCHES: { name: string; patch: RequestInit; allowed(modes: readonly Mode[]): boolean }[] = [
      { name: 'INSERT DATA', patch: sparql('INSERT DATA { <#a> <http://ex/p> 2 }'), allowed: (m) => has(m, 'Append', 'Write') },
      { name: 'N3 inserts', patch: n3('solid:inserts { <#a> <http://ex/p> 2 }'), allowed: (m) => has(m, 'Append', 'Write') },
      // A failed deletion (409) would tell whether a triple exists, so deleting needs Read too (Solid Protocol).
      { name: 'DELETE DATA', patch: sparql('DELETE DATA { <#a> <http://ex/p> 1 }'), allowed: (m) => has(m, 'Write') && has(m, 'Read') },
      { name: 'INSERT WHERE', patch: sparql('INSERT { ?s <http://ex/q> 3 } WHERE { ?s <http://ex/p> 1 }'), allowed: (m) => has(m, 'Append', 'Write') && has(m, 'Read') },
      {
        name: 'N3 where, deletes and inserts',
        patch: n3('solid:where { ?s <http://ex/p> ?o }; solid:deletes { ?s <http://ex/p> ?o }; solid:inserts { ?s <http://ex/p> 5 }'),
        allowed: (m) => has(m, 'Write') && has(m, 'Read'),
      },
    ];
    const PATCH_GRANTS: Mode[][] = [[], ['Read'], ['Append'], ['Write'], ['Control'], ['Read', 'Append'], ['Read', 'Write']];

    for (const { name, patch, allowed: allowedFor } of PATCHES) {
      for (const modes of PATCH_GRANTS) {
        const allowed = allowedFor(modes);
        it(`${name} with ${modes.join('+') || 'no modes'}: ${allowed ? 204 : 403}, and a denied patch changes nothing`, async () => {
          const world = await sharedWith(modes);
          const put = await world.as('alice', '/alice/shared/graph', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: GRAPH });
          expect(put.status).toBe(201);
          const response = await world.as('bob', '/alice/shared/graph', patch);
          expect(response.status, await response.clone().text()).toBe(allowed ? 204 : 403);
          const after = await (await world.as('alice', '/alice/shared/graph')).json();
          if (allowed) expect(after).not.toEqual(JSON.parse(GRAPH));
          else expect(after).toEqual(JSON.parse(GRAPH));
        });
      }
    }

    it('creating a resource by PATCH needs Append on the container too', async () => {
      const world = await sharedWith([]);
      // Append on the (future) resource through its own ACL is not enough without Append on the container.
      const acl = `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./fresh>; acl:mode acl:Append.\n<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./fresh>; acl:mode acl:Control.\n`;
      expect((await world.as('alice', '/alice/shared/fresh.acl', putTurtleAcl(acl))).status).toBe(201);
      const insert = sparql('INSERT DATA { <#a> <http://ex/p> 1 }');
      expect((await world.as('bob', '/alice/shared/fresh', insert)).status).toBe(403);
      const containerAcl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:accessTo <./>; acl:mode acl:Append.\n`;
      expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(containerAcl))).status).toBe(204);
      expect((await world.as('bob', '/alice/shared/fresh', insert)).status).toBe(201);
    });

    it('creating by PATCH needs Append or Write where each container on the way is created, as PUT does', async () => {
      const world = await sharedWith([]);
      const acl = ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BASE}/bob/#me>; acl:default <./>; acl:mode acl:Write.\n`;
      expect((await world.as('alice', '/alice/shared/.acl', putTurtleAcl(acl))).status).toBe(204);
      const insert = sparql('INSERT DATA { <#a> <http://ex/p> 1 }');
      expect((await world.as('bob', '/alice/shared/new/deeper/fresh', insert)).status).toBe(403);
      expect((await world.as('alice', '/alice/shared/new/', { method: 'HEAD' })).status).toBe(404);
      expect((await world.as('alice', '/alice/shared/new/', { method: 'PUT' })).status).toBe(201);
      expect((await world.as('bob', '/alice/shared/new/deeper/fresh', insert)).status).toBe(201);
    });

    it('anonymously: 401, whatever the patch, even before the body is parsed', async () => {
      const world = await sharedWith(['Read', 'Write']);
      for (const { patch } of PATCHES) expect((await world.as(null, '/alice/shared/doc', patch)).status).toBe(401);
      expect((await world.as(null, '/alice/shared/doc', sparql('INSERT DATA { <#a> '))).status).toBe(401);
      expect((await world.as('bob', '/alice/shared/doc', sparql('INSERT DATA { <#a> '))).status).toBe(400);
    });
  });
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

describe('WAC-Allow on error answers', () => {
  it('comes on errors after the access check, such as a 404 that tells whether the caller may create the resource', async () => {
    const world = await sharedWith(['Read', 'Write']);
    const missing = await world.as('bob', '/alice/shared/missing', { method: 'HEAD' });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('wac-allow')).toBe('user="read write append",public=""');
    const conflict = await world.as('alice', '/alice/shared/', { method: 'PUT' });
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('wac-allow')).toBe('user="read write append control",public=""');
  });

  it('does not come on denials', async () => {
    const world = await sharedWith([]);
    expect((await world.as('bob', '/alice/shared/doc')).headers.get('wac-allow')).toBeNull();
    expect((await world.as(null, '/alice/shared/doc')).headers.get('wac-allow')).toBeNull();
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
