/**
 * The attacks of issue 30 replayed against a real `svc` whose `--root` is a case-insensitive view of a
 * directory, as macOS and Windows give by default: test/support/casefold_fs.py, a FUSE passthrough that
 * compares names after NFD and case folding. On such a disk `.QUOTA.JSON` is `.quota.json` and `doc.ACL`
 * is `doc.acl`; before the fix every attack here succeeded. Skipped where FUSE or fusepy is missing,
 * except in CI (CI=true), where it fails: scripts/setup-system.sh installs them.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseFoldingUnavailable, mountCaseFoldingView, type CaseFoldingView } from '../support/casefold-mount.ts';
import { createPods, startSvc, type RunningSvc } from '../support/server.ts';
import { putJsonLdAcl } from '../wac/pods.ts';

const unavailable = caseFoldingUnavailable();
if (unavailable && process.env.CI === 'true') throw new Error(`The case-insensitive disk test cannot run: ${unavailable}. scripts/setup-system.sh installs what it needs.`);
if (unavailable) console.warn(`test/e2e/casefold-disk.test.ts skipped: ${unavailable}.`);

const PREFIXES = '@prefix acl: <http://www.w3.org/ns/auth/acl#>.\n@prefix foaf: <http://xmlns.com/foaf/0.1/>.\n';
const turtle = (body: string): RequestInit => ({ method: 'PUT', headers: { 'content-type': 'text/turtle' }, body: PREFIXES + body });

describe.skipIf(unavailable !== null)('the attacks of issue 30 on a case-insensitive data directory (a FUSE view)', () => {
  let view: CaseFoldingView;
  let svc: RunningSvc;
  let tokens: Record<string, string> = {};
  const start = async () => (svc = await startSvc(['-q', '--root', view.path, '--default-quota', '50KB']));
  const restart = async () => {
    await svc.stop();
    await start();
  };
  const as = (who: string | null, path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (who) headers.set('authorization', `Bearer ${tokens[who]}`);
    return fetch(svc.base + path, { ...init, headers });
  };
  const backingNames = (container: string) => readdir(join(view.backing, container));

  beforeAll(async () => {
    view = await mountCaseFoldingView();
    await start();
    tokens = await createPods(svc.base, ['alice', 'bob']);
  }, 60_000);

  afterAll(async () => {
    await svc?.stop();
    await view?.close();
  });

  it('is a case-insensitive view: a file written as doc.acl is read back as DOC.ACL', async () => {
    expect(await readFile(join(view.path, 'alice', 'INBOX', '.ACL'), 'utf8')).toBe(await readFile(join(view.backing, 'alice', 'inbox', '.acl'), 'utf8'));
  });

  it('an owner cannot remove their quota: PUT /alice/.QUOTA.JSON is 400, and after a restart the quota still holds', async () => {
    const before = await readFile(join(view.backing, 'alice', '.quota.json'), 'utf8');
    const refused = await as('alice', '/alice/.QUOTA.JSON', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"limit":0,"used":0}' });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(await readFile(join(view.backing, 'alice', '.quota.json'), 'utf8')).toBe(before);
    await restart();
    expect((await as('alice', '/alice/big', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(60_000) })).status).toBe(507);
  });

  it('Write does not become Control: bob (Read+Write) gets 400 for PUT /alice/shared/.ACL, and after a restart still no Control', async () => {
    // Relative WebIDs: a restart listens on another port.
    const aliceAcl = `<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write, acl:Control.
<#bob> a acl:Authorization; acl:agent <../../bob/#me>; acl:accessTo <./>; acl:default <./>; acl:mode acl:Read, acl:Write.
`;
    expect((await as('alice', '/alice/shared/.acl', turtle(aliceAcl))).status).toBe(201);
    const takeover = putJsonLdAcl([
      { id: 'bob', agent: '../../bob/#me', accessTo: './', default: './', modes: ['Read', 'Write', 'Control'] },
      { id: 'public', public: true, accessTo: './', default: './', modes: ['Write'] },
    ]);
    expect((await as('bob', '/alice/shared/.acl', takeover)).status).toBe(403);
    expect((await as('bob', '/alice/shared/.ACL', takeover)).status).toBe(400);
    expect((await backingNames('alice/shared')).sort()).toEqual(['.acl']);
    expect(await readFile(join(view.backing, 'alice', 'shared', '.acl'), 'utf8')).toBe(PREFIXES + aliceAcl);
    await restart();
    expect((await as('bob', '/alice/shared/.acl')).status).toBe(403);
    expect((await as(null, '/alice/shared/note', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(401);
  });

  it('anonymous Append cannot read private mail: Slug msg1.ACL gets a fresh name, and msg1 stays private after a restart', async () => {
    const post = (slug: string, init: RequestInit) => as(null, '/alice/inbox/', { ...init, method: 'POST', headers: { ...init.headers, slug } });
    expect((await post('msg1', { headers: { 'content-type': 'text/plain' }, body: 'the private message' })).headers.get('location')).toBe(`${svc.base}/alice/inbox/msg1`);
    const posted = await post('msg1.ACL', putJsonLdAcl([{ id: 'public', public: true, accessTo: 'msg1', modes: ['Read'] }]));
    expect(posted.status).toBe(201);
    expect(posted.headers.get('location')).toMatch(new RegExp(`^${svc.base}/alice/inbox/[0-9a-f-]{36}$`));
    expect((await backingNames('alice/inbox')).filter((name) => name.toLowerCase().startsWith('msg1')).sort()).toEqual(['msg1', 'msg1.svc-meta']);
    await restart();
    expect((await as(null, '/alice/inbox/msg1')).status).toBe(401);
  });

  it('no container takes an ACL name: anonymous Append gets a fresh name for Slug X.ACL, and alice can still write the ACL of x', async () => {
    const posted = await as(null, '/alice/inbox/', { method: 'POST', headers: { slug: 'X.ACL', link: '<http://www.w3.org/ns/ldp#BasicContainer>; rel="type"' } });
    expect(posted.status).toBe(201);
    expect(posted.headers.get('location')).toMatch(new RegExp(`^${svc.base}/alice/inbox/[0-9a-f-]{36}/$`));
    expect((await as('alice', '/alice/inbox/x.acl/', { method: 'PUT' })).status).toBe(400);
    expect((await as('alice', '/alice/inbox/x', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' })).status).toBe(201);
    const acl = `<#owner> a acl:Authorization; acl:agent <../#me>; acl:accessTo <x>; acl:mode acl:Read, acl:Write, acl:Control.\n`;
    expect((await as('alice', '/alice/inbox/x.acl', turtle(acl))).status).toBe(201);
  });
});
