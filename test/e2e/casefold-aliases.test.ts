/**
 * One file under two spellings: on a disk that ignores case or normalises names (macOS, Windows; here the
 * FUSE view of test/support/casefold_fs.py), `/alice/Doc` and `/alice/doc` are the same file, while the
 * server keys its state (the ACL cache, the fs driver's caches, quota ledgers, locks) by the spelling. Each
 * replay below succeeded against a real `svc --root` on such a view before the fs driver refused other
 * spellings of existing names (see "Names on disks that fold them" in docs/decisions.md). Skipped where FUSE
 * or fusepy is missing, except in CI (CI=true).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFoldingUnavailable, mountCaseFoldingView, type CaseFoldingView } from '../support/casefold-mount.ts';
import { createPods, startSvc, type RunningSvc } from '../support/server.ts';

const unavailable = caseFoldingUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`The case-insensitive disk test cannot run: ${unavailable}. scripts/setup-system.sh installs what it needs.`);
if (unavailable) console.warn(`test/e2e/casefold-aliases.test.ts skipped: ${unavailable}.`);

const PREFIXES = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n';
const text = (body: string, headers: Record<string, string> = {}): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'text/plain', ...headers }, body });
const aclGranting = (bobModes: string) =>
  PREFIXES +
  `<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.\n` +
  (bobModes ? `<#bob> a acl:Authorization; acl:agent <../../bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode ${bobModes}.\n` : '');

describe.skipIf(unavailable !== null)('one file under two spellings on a case-insensitive data directory (a FUSE view)', () => {
  let view: CaseFoldingView;
  let svc: RunningSvc;
  let tokens: Record<string, string> = {};
  const as = (who: string | null, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (who) headers.set('authorization', `Bearer ${tokens[who]}`);
    return fetch(svc.base + path, { ...init, headers });
  };
  const backing = (...parts: string[]) => join(view.backing, ...parts);
  /** A refusal of another spelling: 400, problem+json, naming the spelling on disk. */
  const expectSpelledOtherwise = async (response: Response, onDisk: string) => {
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const problem = (await response.json()) as { type: string; detail: string };
    expect(problem.type).toBe('urn:svc:problem:name-spelled-otherwise');
    expect(problem.detail).toContain(`"${onDisk}"`);
  };

  beforeAll(async () => {
    view = await mountCaseFoldingView();
    svc = await startSvc(['-q', '--root', view.path, '--default-quota', '50KB', '--notifications']);
    tokens = await createPods(svc.base, ['alice', 'bob', 'carol']);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await view?.close();
  });

  it('says at startup that the data directory folds names', () => {
    expect(svc.output()).toMatch(/ignores case or normalises names/);
  });

  it('a revoked grant ends under every spelling, and another spelling tells only who may list its container', async () => {
    expect((await as('alice', '/alice/private/inner/secret', text('the secret'))).status).toBe(201);
    const acl = (bobModes: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: aclGranting(bobModes).replaceAll('../', '../../') });
    expect((await as('alice', '/alice/private/inner/.acl', acl('acl:Read'))).status).toBe(201);
    expect((await as('bob', '/alice/private/inner/secret')).status).toBe(200);
    // Before the fix this was 200, and the ACL cached under /alice/private/INNER/.acl outlived the revocation
    // below. Bob may not list /alice/private/, so he is not told how inner is spelled there either.
    expect((await as('bob', '/alice/private/INNER/secret')).status).toBe(403);
    await expectSpelledOtherwise(await as('alice', '/alice/private/INNER/secret'), 'inner');
    await expectSpelledOtherwise(await as('bob', '/alice/private/inner/SECRET'), 'secret');
    expect((await as('alice', '/alice/private/inner/.acl', acl(''))).status).toBe(204);
    expect((await as('bob', '/alice/private/inner/secret')).status).toBe(403);
    expect((await as('bob', '/alice/private/INNER/secret')).status).toBe(403);
    expect((await as('bob', '/alice/private/inner/SECRET')).status).toBe(403);
    expect((await as(null, '/alice/private/INNER/secret')).status).toBe(401);
    // Writes look up what exists before the access check: that tells nothing either.
    expect((await as(null, '/alice/private/INNER/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(401);
    expect((await as('bob', '/alice/private/INNER/new', text('x'))).status).toBe(403);
    expect((await as('bob', '/alice/private/INNER/secret', { method: 'DELETE' })).status).toBe(403);
    await expectSpelledOtherwise(await as('alice', '/alice/private/INNER/', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 'inner');
    // Routes beside LDP ask the same access check: a subscription to the topic under another spelling.
    const subscribe = (who: string | null, topic: string) =>
      as(who, '/.notifications/WebSocketChannel2023/', {
        method: 'POST',
        headers: { 'content-type': 'application/ld+json' },
        body: JSON.stringify({ '@context': ['https://www.w3.org/ns/solid/notification/v1'], type: 'WebSocketChannel2023', topic: svc.base + topic }),
      });
    expect((await subscribe(null, '/alice/private/INNER/secret')).status).toBe(401);
    expect((await subscribe('bob', '/alice/private/INNER/secret')).status).toBe(403);
    await expectSpelledOtherwise(await subscribe('alice', '/alice/private/INNER/secret'), 'inner');
  });

  it('no stale body through another spelling: after a write to doc, DOC is refused rather than served from the cache', async () => {
    expect((await as('alice', '/alice/notes/doc', text('v1'))).status).toBe(201);
    await expectSpelledOtherwise(await as('alice', '/alice/notes/DOC'), 'doc');
    expect((await as('alice', '/alice/notes/doc', text('v2'))).status).toBe(204);
    await expectSpelledOtherwise(await as('alice', '/alice/notes/DOC'), 'doc');
    await expectSpelledOtherwise(await as('alice', '/alice/NOTES/'), 'notes');
    expect(await (await as('alice', '/alice/notes/doc')).text()).toBe('v2');
  });

  it('a new name that folds onto an existing one is refused, not written over it: PUT Doc, PUT Notes/, DELETE DOC', async () => {
    await expectSpelledOtherwise(await as('alice', '/alice/notes/Doc', text('overwritten')), 'doc');
    await expectSpelledOtherwise(await as('alice', '/alice/Notes/other', text('x')), 'notes');
    await expectSpelledOtherwise(await as('alice', '/alice/Notes/', { method: 'PUT' }), 'notes');
    await expectSpelledOtherwise(await as('alice', '/alice/notes/DOC', { method: 'DELETE' }), 'doc');
    expect((await readdir(backing('alice', 'notes'))).sort()).toEqual(['doc', 'doc.svc-meta']);
    expect(await readFile(backing('alice', 'notes', 'doc'), 'utf8')).toBe('v2');
  });

  it('a resource and its ACL are spelled alike: the ACL of x is not written as X.acl, nor y beside y.acl as Y', async () => {
    expect((await as('alice', '/alice/pair/x', text('x'))).status).toBe(201);
    const ownerOf = (subject: string): RequestInit => ({
      method: 'PUT',
      headers: { 'content-type': 'text/turtle' },
      body: PREFIXES + `<#owner> a acl:Authorization; acl:agent <${svc.base}/alice/#me>; acl:accessTo <${subject}>; acl:mode acl:Read, acl:Write, acl:Control.\n`,
    });
    await expectSpelledOtherwise(await as('alice', '/alice/pair/X.acl', ownerOf('X')), 'x');
    expect((await as('alice', '/alice/pair/y.acl', ownerOf('y'))).status).toBe(201);
    await expectSpelledOtherwise(await as('alice', '/alice/pair/Y', text('y')), 'y.acl');
    expect((await as('alice', '/alice/pair/y', text('y'))).status).toBe(201);
  });

  it('a Slug that folds onto an existing member gets a fresh name', async () => {
    const posted = await as(null, '/alice/inbox/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'Mail' }, body: 'one' });
    expect(posted.headers.get('location')).toBe(`${svc.base}/alice/inbox/Mail`);
    const again = await as(null, '/alice/inbox/', { method: 'POST', headers: { 'content-type': 'text/plain', slug: 'MAIL' }, body: 'two' });
    expect(again.status).toBe(201);
    expect(again.headers.get('location')).toMatch(new RegExp(`^${svc.base}/alice/inbox/[0-9a-f-]{36}$`));
    expect(await readFile(backing('alice', 'inbox', 'Mail'), 'utf8')).toBe('one');
  });

  it('one quota per pod: writes through /CAROL/ and /Carol/ are refused, so three writes that each fit cannot overfill it', async () => {
    // carol's own pod, sized from its record on disk, so what other tests wrote does not matter.
    const { limit, used } = JSON.parse(await readFile(backing('carol', '.quota.json'), 'utf8')) as { limit: number; used: number };
    const body = 'x'.repeat(Math.floor((limit - used) * 0.6));
    const answers = await Promise.all(['/carol/q1', '/CAROL/q2', '/Carol/q3'].map((path) => as('carol', path, text(body))));
    expect(answers[0]!.status).toBe(201);
    for (const answer of answers.slice(1)) await expectSpelledOtherwise(answer, 'carol');
    expect((await readdir(backing('carol'))).filter((name) => /^q\d$/i.test(name))).toEqual(['q1']);
    expect((await as('carol', '/carol/q4', text(body))).status).toBe(507);
  });

  it('the pod root under another spelling is refused, not served as a plain container', async () => {
    await expectSpelledOtherwise(await as('alice', '/ALICE/'), 'alice');
    await expectSpelledOtherwise(await as('alice', '/Alice/', { method: 'DELETE' }), 'alice');
  });

  it('writes to one file take turns: concurrent PATCHes through two spellings lose nothing, those spelled otherwise are refused', async () => {
    const start = JSON.stringify({ '@id': '#start', 'https://example.org/n': 0 });
    expect((await as('alice', '/alice/notes/list.jsonld', { method: 'PUT', headers: { 'content-type': 'application/ld+json' }, body: start })).status).toBe(201);
    const patch = (i: number) => ({
      method: 'PATCH',
      headers: { 'content-type': 'text/n3' },
      body: `@prefix solid: <http://www.w3.org/ns/solid/terms#>.\n_:p a solid:InsertDeletePatch; solid:inserts { <#item${i}> <#n> ${i}. }.`,
    });
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => as('alice', i % 2 ? '/alice/notes/LIST.jsonld' : '/alice/notes/list.jsonld', patch(i))));
    answers.forEach((answer, i) => expect(answer.status, `PATCH ${i}`).toBe(i % 2 ? 400 : 204));
    const stored = await readFile(backing('alice', 'notes', 'list.jsonld'), 'utf8');
    for (let i = 0; i < 12; i += 2) expect(stored).toContain(`"#item${i}"`);
    expect(stored).not.toContain('LIST.jsonld');
  });

  it('compare-and-swap holds: of two If-Match PUTs with one ETag through two spellings, the other spelling is refused', async () => {
    const etag = (await as('alice', '/alice/notes/doc')).headers.get('etag')!;
    const [first, second] = await Promise.all([
      as('alice', '/alice/notes/doc', text('from doc', { 'if-match': etag })),
      as('alice', '/alice/notes/Doc', text('from Doc', { 'if-match': etag })),
    ]);
    expect(first!.status).toBe(204);
    await expectSpelledOtherwise(second!, 'doc');
    expect(await readFile(backing('alice', 'notes', 'doc'), 'utf8')).toBe('from doc');
  });
});
