import { describe, expect, it } from 'vitest';
import { BASE, makeApp } from '../support/app.ts';
import { ownerRule, podWorld, putText, putTurtleAcl } from './pods.ts';

const BOB = `${BASE}/bob/#me`;

async function world() {
  const w = await podWorld(['alice', 'bob', 'carol']);
  for (const path of ['/alice/a/doc', '/alice/a/b/c/deep', '/alice/a/b/doc']) {
    expect((await w.as('alice', path, putText())).status).toBe(201);
  }
  return w;
}

describe('inheritance from the nearest ancestor ACL', () => {
  it('members at any depth inherit acl:default from the nearest container ACL', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/b/c/deep')).status).toBe(200);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
  });

  it('acl:default alone does not grant access to the container itself', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/')).status).toBe(403);
  });

  it('acl:accessTo alone is not inherited', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:accessTo <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/')).status).toBe(200);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(403);
  });

  it('the nearest ACL replaces, not extends, the ones above it', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    await w.as('alice', '/alice/a/b/.acl', putTurtleAcl(ownerRule('../../#me')));
    expect((await w.as('bob', '/alice/a/b/doc')).status).toBe(403);
    expect((await w.as('bob', '/alice/a/b/c/deep')).status).toBe(403);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
  });

  it("a resource's own ACL uses acl:accessTo and overrides its container's", async () => {
    const w = await world();
    await w.as('alice', '/alice/a/doc.acl', putTurtleAcl(`<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:accessTo <./doc>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
    // Alice named no authorization for herself there, so even the owner lost access to the resource.
    expect((await w.as('alice', '/alice/a/doc')).status).toBe(403);
    // As the pod owner she keeps Control, so she can remove that ACL and inherit again.
    expect((await w.as('alice', '/alice/a/doc.acl', { method: 'DELETE' })).status).toBe(204);
    expect((await w.as('alice', '/alice/a/doc')).status).toBe(200);
  });

  it('changes apply immediately: the cache is invalidated by ACL writes and deletes, for descendants too', async () => {
    const w = await world();
    expect((await w.as('bob', '/alice/a/b/c/deep')).status).toBe(403);
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/b/c/deep')).status).toBe(200);
    expect((await w.as('alice', '/alice/a/.acl', { method: 'DELETE' })).status).toBe(204);
    expect((await w.as('bob', '/alice/a/b/c/deep')).status).toBe(403);
    expect((await w.as('alice', '/alice/a/b/c/deep')).status).toBe(200);
  });

  it('deleting a resource removes its ACL, so a new resource at that URL inherits again', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/doc.acl', putTurtleAcl(`<#o> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./doc>; acl:mode acl:Read, acl:Write, acl:Control.\n<#p> a acl:Authorization; acl:agentClass foaf:Agent; acl:accessTo <./doc>; acl:mode acl:Read.`));
    expect((await w.as(null, '/alice/a/doc')).status).toBe(200);
    expect((await w.as('alice', '/alice/a/doc', { method: 'DELETE' })).status).toBe(204);
    expect((await w.as('alice', '/alice/a/doc', putText())).status).toBe(201);
    expect((await w.as(null, '/alice/a/doc')).status).toBe(401);
  });
});

describe('access subjects', () => {
  it('acl:AuthenticatedAgent admits any authenticated agent, not the public', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#any> a acl:Authorization; acl:agentClass acl:AuthenticatedAgent; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('carol', '/alice/a/doc')).status).toBe(200);
    expect((await w.as(null, '/alice/a/doc')).status).toBe(401);
  });

  it('acl:agentGroup admits the vcard:hasMember members of a group document on this server', async () => {
    const w = await world();
    const group = { '@context': { vcard: 'http://www.w3.org/2006/vcard/ns#' }, '@id': '#friends', '@type': 'vcard:Group', 'vcard:hasMember': { '@id': '../../bob/#me' } };
    expect((await w.as('alice', '/alice/groups/friends', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(group) })).status).toBe(201);
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#friends> a acl:Authorization; acl:agentGroup <../groups/friends#friends>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
    expect((await w.as('carol', '/alice/a/doc')).status).toBe(403);
  });

  it('acl:origin narrows an authorization for requests from another origin', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:origin <https://app.example>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
    expect((await w.as('bob', '/alice/a/doc', { headers: { origin: 'https://app.example' } })).status).toBe(200);
    expect((await w.as('bob', '/alice/a/doc', { headers: { origin: BASE } })).status).toBe(200);
    expect((await w.as('bob', '/alice/a/doc', { headers: { origin: 'https://evil.example' } })).status).toBe(403);
  });

  it('an authorization naming only an origin admits requests from that origin', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#app> a acl:Authorization; acl:origin <https://app.example>; acl:default <./>; acl:mode acl:Read.`));
    expect((await w.as(null, '/alice/a/doc', { headers: { origin: 'https://app.example' } })).status).toBe(200);
    expect((await w.as(null, '/alice/a/doc')).status).toBe(401);
  });

  it('absolute IRIs with the host the request came to count as local, like relative ones', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(`<#o> a acl:Authorization; acl:agent <${BASE}/alice/#me>; acl:accessTo <${BASE}/alice/a/>; acl:default <${BASE}/alice/a/>; acl:mode acl:Read, acl:Write, acl:Control.`));
    expect((await w.as('alice', '/alice/a/b/doc')).status).toBe(200);
  });
});

describe('ACL documents', () => {
  it('Turtle and JSON-LD are both accepted without --conneg', async () => {
    const w = await world();
    const jsonLd = {
      '@context': { acl: 'http://www.w3.org/ns/auth/acl#' },
      '@graph': [
        { '@id': '#o', '@type': 'acl:Authorization', 'acl:agent': { '@id': '../#me' }, 'acl:accessTo': { '@id': './' }, 'acl:default': { '@id': './' }, 'acl:mode': [{ '@id': 'acl:Read' }, { '@id': 'acl:Write' }, { '@id': 'acl:Control' }] },
        { '@id': '#b', '@type': 'acl:Authorization', 'acl:agent': { '@id': BOB }, 'acl:default': { '@id': './' }, 'acl:mode': { '@id': 'acl:Read' } },
      ],
    };
    const put = await w.as('alice', '/alice/a/.acl', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: JSON.stringify(jsonLd) });
    expect(put.status).toBe(201);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
  });

  it('are read back as Turtle or JSON-LD without --conneg, as ACL editors expect', async () => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    const turtle = await w.as('alice', '/alice/a/.acl', { headers: { accept: 'text/turtle' } });
    expect(turtle.status).toBe(200);
    expect(turtle.headers.get('content-type')).toMatch(/^text\/turtle/);
    // Written back unchanged, the document still grants what it did.
    expect((await w.as('alice', '/alice/a/.acl', { method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: await turtle.text() })).status).toBe(204);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
    const jsonLd = await w.as('alice', '/alice/a/.acl', { headers: { accept: 'application/ld+json' } });
    expect(jsonLd.headers.get('content-type')).toBe('application/ld+json');
    expect(JSON.stringify(await jsonLd.json())).toContain('bob/#me');
    // Other resources still need --conneg for Turtle.
    expect((await w.as('alice', '/alice/a/doc', { headers: { accept: 'text/turtle' } })).status).toBe(200);
    expect((await w.as('alice', '/alice/', { headers: { accept: 'text/turtle' } })).status).toBe(406);
  });

  it('names the faulty node of a refused ACL as the client wrote it', async () => {
    const w = await world();
    const response = await w.as('alice', '/alice/a/.acl', putTurtleAcl('<#x> a acl:Authorization; acl:agent <../#me>; acl:mode acl:Read.'));
    expect(response.status).toBe(400);
    expect(((await response.json()) as { detail: string }).detail).toBe('The ACL document is not valid: /alice/a/.acl#x has neither acl:accessTo nor acl:default.');
  });

  it.each([
    ['a Turtle syntax error', '<#x> a acl:Authorization'],
    ['an authorization without a mode', '<#x> a acl:Authorization; acl:agent <../#me>; acl:default <./>.'],
    ['an authorization without a target', '<#x> a acl:Authorization; acl:agent <../#me>; acl:mode acl:Read.'],
    ['an authorization without a subject', '<#x> a acl:Authorization; acl:default <./>; acl:mode acl:Read.'],
    ['an unknown mode', '<#x> a acl:Authorization; acl:agent <../#me>; acl:default <./>; acl:mode acl:Fly.'],
    ['a literal as agent', '<#x> a acl:Authorization; acl:agent "alice"; acl:default <./>; acl:mode acl:Read.'],
    ['acl: properties on an untyped node', '<#x> acl:agent <../#me>; acl:default <./>; acl:mode acl:Read.'],
  ])('refuses %s with 400 and keeps the previous ACL', async (_name, body) => {
    const w = await world();
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me') + `<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:default <./>; acl:mode acl:Read.`));
    const response = await w.as('alice', '/alice/a/.acl', putTurtleAcl(body));
    expect(response.status).toBe(400);
    expect((await w.as('bob', '/alice/a/doc')).status).toBe(200);
    expect((await w.as('alice', '/alice/a/doc')).status).toBe(200);
  });

  it('cannot lock the pod owner out: they keep Control, and only Control, whatever the ACL says', async () => {
    const w = await world();
    // An empty ACL is well-formed: it grants nobody anything, not even its author.
    expect((await w.as('alice', '/alice/a/.acl', putTurtleAcl(''))).status).toBe(201);
    expect((await w.as('alice', '/alice/a/doc')).status).toBe(403);
    const head = await w.as('alice', '/alice/a/doc', { method: 'OPTIONS' });
    expect(head.headers.get('wac-allow')).toBe('user="control",public=""');
    expect((await w.as('alice', '/alice/a/b/.acl', { headers: { accept: 'text/turtle' } })).status).toBe(404);
    // A pod is one owner's: bob, named in an ACL of alice's pod without Control, does not get it.
    await w.as('alice', '/alice/a/.acl', putTurtleAcl(`<#bob> a acl:Authorization; acl:agent <${BOB}>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.`));
    expect((await w.as('bob', '/alice/a/.acl')).status).toBe(403);
    expect((await w.as('bob', '/bob/.acl')).status).toBe(200);
    expect((await w.as('alice', '/alice/a/.acl', putTurtleAcl(ownerRule('../#me')))).status).toBe(204);
    expect((await w.as('alice', '/alice/a/doc')).status).toBe(200);
  });

  it('refuses ACL bodies that are neither Turtle nor JSON-LD with 415', async () => {
    const w = await world();
    expect((await w.as('alice', '/alice/a/.acl', putText('x'))).status).toBe(415);
  });
});

describe('the root ACL', () => {
  it('is created at startup, logged, and lets the public read the root container only', async () => {
    const test = makeApp({ public: false });
    await test.app.init();
    expect(test.logs.some((line) => line.includes('created the root ACL'))).toBe(true);
    expect((await test.request('/')).status).toBe(200);
    expect((await test.request('/anything')).status).toBe(401);
    expect((await test.request('/thing', putText())).status).toBe(401);
    expect((await test.request('/.acl')).status).toBe(401);
  });

  it('is kept when it exists', async () => {
    const test = makeApp({ public: false });
    await test.storage.put('/.acl', '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n<#p> a acl:Authorization; acl:agentClass <http://xmlns.com/foaf/0.1/Agent>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read.', { contentType: 'text/turtle' });
    await test.storage.put('/x', 'x', { contentType: 'text/plain' });
    await test.app.init();
    expect(test.logs.some((line) => line.includes('created the root ACL'))).toBe(false);
    expect((await test.request('/x')).status).toBe(200);
  });

  it('without any ACL everything is denied', async () => {
    const test = makeApp({ public: false });
    await test.app.init();
    await test.storage.delete('/.acl');
    expect((await test.request('/')).status).toBe(401);
  });
});
